"""Typing with the inspector open closes it; every key reaches the composer, in order."""

from __future__ import annotations

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.screens.inspector import RequestInspector

from .app_harness import SIZE, MakeApp, burst, settle, typed, until


async def test_a_sentence_typed_into_the_inspector_is_sent_whole(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.script("Noted.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed(pilot, "Before F2, ")
        await pilot.press("f2")
        assert isinstance(app.screen, RequestInspector)
        # j, m and d once switched its tabs; the Enter after them sends the message.
        burst(pilot, "and after it: just do my diff, jam\rthen the next")
        await until(pilot, lambda: app.conversation_screen.composer.text == "then the next")
        await settle(pilot)
        sent = [
            m.content
            for m in app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )
        ]
        assert sent == ["Before F2, and after it: just do my diff, jam", "Noted."]
        assert not isinstance(app.screen, RequestInspector)
        assert app.focused is app.conversation_screen.composer
        assert notes.of("error") == []


async def test_typing_into_a_replys_inspector_goes_to_the_composer(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("First answer.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed(pilot, "First question")
        await pilot.press("enter")
        await settle(pilot)
        reply = app.workspace.store.messages.messages(app.conversation_screen.session.stored_id)[1]
        app.conversation_screen.conversation_view.select(reply.id)
        app.conversation_screen.conversation_view.focus()
        await pilot.press("f2")
        assert isinstance(app.screen, RequestInspector)
        burst(pilot, "a follow-up")
        # Back where F2 was pressed (the conversation), which sends typing to the composer.
        await until(pilot, lambda: app.conversation_screen.composer.text == "a follow-up")
        assert app.focused is app.conversation_screen.composer
