"""A `[keys]` remap of the composer's own keys moves them, and a key the config gives to
another action is that action's in the composer too."""

from __future__ import annotations

from ctxchat.tui.screens.inspector import RequestInspector

from .app_harness import SIZE, MakeApp, settle, until


async def test_clearing_the_draft_moves_to_the_key_the_config_gives_it(
    make_app: MakeApp,
) -> None:
    app, notes = make_app(extra='[keys]\n"composer.clear" = "f11"\n')
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        composer = app.conversation_screen.composer
        composer.focus()
        composer.insert("first line\nsecond line")
        await pilot.press("ctrl+u")  # the old key only deletes to the line's start, as ever
        await settle(pilot)
        assert composer.text == "first line\n"
        assert not any(note.startswith("Cleared the draft") for note in notes.messages)
        await pilot.press("f11")
        await until(pilot, lambda: composer.text == "")
        assert notes.messages[-1] == "Cleared the draft (1 line); ^z brings it back."


async def test_a_key_the_config_gives_another_action_is_that_actions_in_the_composer(
    make_app: MakeApp,
) -> None:
    app, _ = make_app(extra='[keys]\n"context.inspect" = "ctrl+u"\n"composer.clear" = "f11"\n')
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        composer = app.conversation_screen.composer
        composer.focus()
        composer.insert("a draft")
        await pilot.press("ctrl+u")
        await until(pilot, lambda: isinstance(app.screen, RequestInspector))
        assert composer.text == "a draft"
