"""Choosing a preset and editing the system prompt in the app: the conversation keeps the
choice, the panels and header follow at once, and the next request carries it."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, OptionList, Static, TextArea

from ctxchat.core.budget import Layer
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.preset_picker import PresetPicker, first_line
from ctxchat.tui.screens.system_prompt_editor import SystemPromptEditor
from ctxchat.tui.widgets.layer_panel import LayerPanel

from .app_harness import SIZE, MakeApp, settle, typed, until

PRESETS = (
    "[presets.precise]\n"
    'system_prompt = "Answer in one line."\n'
    "temperature = 0.2\n"
    "top_p = 0.5\n"
    "\n"
    "[presets.poet]\n"
    'system_prompt = "Answer in verse.\\nRhyme if you can."\n'
    "temperature = 1.1\n"
)
DEFAULT_PROMPT = "You are a careful assistant."
CONFIG = f'[context]\nsystem_prompt = "{DEFAULT_PROMPT}"\n\n' + PRESETS


def test_a_prompts_first_line_is_cut_to_one_row_of_the_dialog() -> None:
    long = "You are a pirate. Always answer like a pirate, in one short sentence, matey."
    assert first_line(long) == "“You are a pirate. Always answer like a pirate, in one short sen…”"
    assert first_line("\n  Two lines.\nThe second.") == "“Two lines.” …"
    assert first_line("") == "sends no system prompt"
    assert first_line(None) == "no system prompt of its own"


def system_panel(app: CtxChatApp) -> LayerPanel:
    return app.conversation_screen.query_one("#layer-system", LayerPanel)


def panel_text(app: CtxChatApp) -> str:
    """What the system layer's panel shows: its items and the line under them."""
    panel = system_panel(app)
    parts = [str(s.render()) for s in panel.query(Static)]
    return "\n".join(parts)


def option_texts(app: CtxChatApp) -> list[str]:
    options = app.screen.query_one(OptionList).options
    return [str(option.prompt) for option in options]


async def send(pilot: Pilot[Any], server: ScriptedModelServer, text: str) -> dict[str, Any]:
    """Send `text` from the composer and return the body the server received."""
    server.script("Done.")
    await typed(pilot, text)
    await pilot.press("enter")
    await until(pilot, lambda: any(m["content"] == text for m in last_messages(server)))
    await settle(pilot)
    return server.requests[-1]


def last_messages(server: ScriptedModelServer) -> list[dict[str, Any]]:
    return list(server.requests[-1]["messages"]) if server.requests else []


async def open_editor(pilot: Pilot[Any], app: CtxChatApp) -> SystemPromptEditor:
    """The system prompt editor, opened as the palette opens it."""
    app.conversation_screen.preset_dialogs.edit_prompt()
    await settle(pilot)
    editor = app.screen
    assert isinstance(editor, SystemPromptEditor)
    return editor


async def open_from_panel(pilot: Pilot[Any], app: CtxChatApp, key: str) -> None:
    system_panel(app).focus()
    await pilot.press(key)
    await settle(pilot)


async def test_a_preset_chosen_in_the_dialog_is_what_the_next_request_sends(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=CONFIG)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_from_panel(pilot, app, "ctrl+k")
        assert isinstance(app.screen, PresetPicker)
        texts = option_texts(app)
        assert texts[0].startswith("  precise\n    temperature 0.2 · top_p 0.5")
        assert "“Answer in one line.”" in texts[0]
        assert "“Answer in verse.” …" in texts[1]  # its first line, more to come
        assert texts[2].startswith("● no preset")  # none chosen yet
        await pilot.press("enter")  # "no preset", highlighted as the one in force
        await settle(pilot)
        assert not isinstance(app.screen, PresetPicker)
        assert app.conversation_screen.session.preset_name is None  # nothing changed

        await open_from_panel(pilot, app, "ctrl+k")
        await pilot.press("up", "up", "enter")
        await settle(pilot)
        session = app.conversation_screen.session
        assert session.store.conversations.get_conversation(session.stored_id).preset == "precise"
        assert "preset precise" in app.conversation_screen.sub_title
        shown = panel_text(app)
        assert "Answer in one line." in shown
        assert 'preset precise (temperature 0.2 · top_p 0.5) · prompt: preset "precise"' in shown
        plan = app.conversation_screen.last_plan
        assert plan is not None
        assert plan.request_messages()[0]["content"] == "Answer in one line."

        body = await send(pilot, server, "Weather?")
    assert body["messages"][0] == {"role": "system", "content": "Answer in one line."}
    assert (body["temperature"], body["top_p"]) == (0.2, 0.5)
    assert 'This conversation uses preset "precise"; its prompt: preset "precise".' in (
        notes.messages
    )


async def test_no_preset_again_sends_the_configs_prompt_and_the_servers_sampling(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(extra=CONFIG, preset="poet")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.preset_dialogs.choose()
        await settle(pilot)
        assert option_texts(app)[1].startswith("● poet")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert "preset" not in str(app.conversation_screen.sub_title)
        assert "prompt:" not in panel_text(app)  # the config's, as with no choice made
        body = await send(pilot, server, "Weather?")
    assert body["messages"][0]["content"] == DEFAULT_PROMPT
    assert "temperature" not in body and "top_p" not in body


async def test_the_prompt_edited_is_sent_and_its_tokens_counted_as_typed(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(extra=CONFIG, preset="precise")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_from_panel(pilot, app, "ctrl+e")
        editor = app.screen
        assert isinstance(editor, SystemPromptEditor)
        session = app.conversation_screen.session
        assert str(editor.query_one("#prompt-source", Static).render()) == (
            'In force: preset "precise". Saved, it becomes this conversation\'s own.'
        )
        area = editor.query_one(TextArea)
        assert area.text == "Answer in one line."
        count = editor.query_one("#prompt-count", Static)
        assert str(count.render()) == f"{session.count('system', 'Answer in one line.')} tokens"
        area.select_all()
        await pilot.press(*"Reply in French")
        await until(
            pilot,
            lambda: str(count.render()) == f"{session.count('system', 'Reply in French')} tokens",
        )
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, SystemPromptEditor)
        assert session.store.conversations.get_conversation(session.stored_id).system_prompt == (
            "Reply in French"
        )
        assert "Reply in French" in panel_text(app)
        assert "prompt: the conversation's own" in panel_text(app)
        body = await send(pilot, server, "Weather?")
    assert body["messages"][0]["content"] == "Reply in French"
    assert body["temperature"] == 0.2  # the preset's sampling stays
    assert "System prompt: the conversation's own." in notes.messages


async def test_going_back_to_the_default_drops_the_conversations_own_prompt(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(extra=CONFIG, preset="precise")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.conversation_screen.session
        session.set_system_prompt("Be terse.")
        editor = await open_editor(pilot, app)
        assert editor.query_one(TextArea).text == "Be terse."
        assert str(editor.query_one("#default", Button).label) == 'Use the preset\'s ("precise")'
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert session.store.conversations.get_conversation(session.stored_id).system_prompt is None
        assert 'prompt: preset "precise"' in panel_text(app)
        body = await send(pilot, server, "Weather?")
    assert body["messages"][0]["content"] == "Answer in one line."


async def test_without_an_own_prompt_there_is_no_default_to_go_back_to(
    make_app: MakeApp,
) -> None:
    app, _ = make_app(extra=CONFIG)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        editor = await open_editor(pilot, app)
        assert editor.query_one("#default", Button).disabled
        await pilot.press("ctrl+r")  # nothing to drop: the editor stays
        await settle(pilot)
        assert app.screen is editor
        await pilot.press("ctrl+s")  # unchanged: nothing is written
        await settle(pilot)
        session = app.conversation_screen.session
        assert session.store.conversations.get_conversation(session.stored_id).system_prompt is None


async def test_escape_asks_before_it_discards_an_edited_prompt(make_app: MakeApp) -> None:
    app, _ = make_app(extra=CONFIG)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        editor = await open_editor(pilot, app)
        await pilot.press("escape")  # unchanged: closes at once
        await settle(pilot)
        assert not isinstance(app.screen, SystemPromptEditor)

        editor = await open_editor(pilot, app)
        await pilot.press(*" Always.")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # keep editing: the text is still there
        await settle(pilot)
        assert editor.is_current
        assert editor.query_one(TextArea).text == DEFAULT_PROMPT + " Always."
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not isinstance(app.screen, SystemPromptEditor | ConfirmScreen)
        session = app.conversation_screen.session
        assert session.store.conversations.get_conversation(session.stored_id).system_prompt is None
        assert session.system_prompt == DEFAULT_PROMPT


async def test_without_presets_the_dialog_says_how_to_add_one(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"preset: choose")
        await pilot.press("enter")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PresetPicker)
        assert not picker.query(OptionList)
        note = str(picker.query_one("#preset-note", Static).render())
        config = app.workspace.loaded.path
        assert note == (
            f"No presets yet. Add a [presets.NAME] table to {config} "
            "and start ctxchat again; for example:"
        )
        example = str(picker.query_one("#preset-example", Static).render())
        assert example.splitlines() == [
            "[presets.precise]",
            'system_prompt = "Answer briefly and exactly."',
            "temperature = 0.2",
        ]
        await pilot.press("enter")  # Enter closes it: there is nothing to choose
        await settle(pilot)
        assert not isinstance(app.screen, PresetPicker)


MARKUP = '[presets.tricky]\nsystem_prompt = "[bold red]Loud[/] \\u001b[31mred\\u001b[0m $var"\n'


async def test_markup_and_escape_sequences_in_a_prompt_are_shown_as_typed(
    make_app: MakeApp,
) -> None:
    app, _ = make_app(extra=MARKUP, preset="tricky")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "[bold red]Loud[/] red $var" in panel_text(app)
        app.conversation_screen.preset_dialogs.choose()
        await settle(pilot)
        first = option_texts(app)[0]
        assert "“[bold red]Loud[/] red $var”" in first
        assert "\x1b" not in first
        await pilot.press("escape")
        await settle(pilot)
        editor = await open_editor(pilot, app)
        assert editor.query_one(TextArea).text == "[bold red]Loud[/] red $var"


async def test_a_click_on_the_system_layer_opens_the_editor_and_its_line_the_presets(
    make_app: MakeApp,
) -> None:
    app, _ = make_app(extra=CONFIG, preset="precise")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#layer-system .layer-panel--body")
        await settle(pilot)
        assert isinstance(app.screen, SystemPromptEditor)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.click("#layer-system .layer-panel--source")
        await settle(pilot)
        assert isinstance(app.screen, PresetPicker)


async def test_only_the_system_layers_panel_has_the_preset_keys(make_app: MakeApp) -> None:
    app, _ = make_app(extra=CONFIG)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        memory = app.conversation_screen.query_one(f"#layer-{Layer.MEMORY.value}", LayerPanel)
        memory.focus()
        await pilot.press("ctrl+k")
        await settle(pilot)
        assert not isinstance(app.screen, PresetPicker)
        assert memory.check_action("choose_preset", ()) is False
        assert system_panel(app).check_action("choose_preset", ()) is True
