"""The preset dialog, the system prompt editor and the system layer after a choice (SVG
snapshots of the real app).

Regenerate with `pytest tests/snapshots/test_preset_snapshots.py --snapshot-update` and
look at the pictures before committing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import TextArea

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.preset_picker import PresetPicker
from ctxchat.tui.screens.system_prompt_editor import SystemPromptEditor

from ..waiting import until
from .conftest import SHOWN_CONFIG
from .snapshot_apps import BuildApp, exchange, steady

SnapCompare = Callable[..., bool]
SMALL = (80, 24)
LARGE = (160, 45)
PRESETS = (
    "[presets.precise]\n"
    'system_prompt = "Answer in one line. Name your source."\n'
    'model = "gpt-4o-mini"\n'
    "temperature = 0.2\n"
    "top_p = 0.5\n"
    "max_output_tokens = 300\n"
    "\n"
    "[presets.poet]\n"
    'system_prompt = "Answer in verse.\\nRhyme if you can."\n'
    "temperature = 1.1\n"
    "\n"
    "[presets.plain]\n"
    "top_p = 0.9\n"
)


def with_turns(app: CtxChatApp) -> CtxChatApp:
    store = app.workspace.store
    conversation = app.conversation_screen.session.stored_id
    exchange(
        store,
        conversation,
        [("user", "Which database do we use?"), ("assistant", "SQLite, in one file.")],
    )
    return app


async def choose_dialog(pilot: Pilot[Any]) -> None:
    """The preset dialog over a conversation whose preset is "poet"."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    app.conversation_screen.session.choose_preset("poet")
    await steady(pilot)
    app.conversation_screen.preset_dialogs.choose()
    await until(pilot, lambda: isinstance(app.screen, PresetPicker))
    await steady(pilot)


async def editing(pilot: Pilot[Any]) -> None:
    """The editor on the preset's prompt, a sentence added: the count follows it."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    app.conversation_screen.session.choose_preset("precise")
    await steady(pilot)
    app.conversation_screen.preset_dialogs.edit_prompt()
    await until(pilot, lambda: isinstance(app.screen, SystemPromptEditor))
    await pilot.press(*" Be kind.")
    area = app.screen.query_one(TextArea)
    await until(pilot, lambda: area.text.endswith("Be kind."))
    await steady(pilot)


async def chosen_with_own_prompt(pilot: Pilot[Any]) -> None:
    """Preset "precise" chosen in the dialog, then the prompt edited and saved."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await steady(pilot)
    app.conversation_screen.preset_dialogs.choose()
    await until(pilot, lambda: isinstance(app.screen, PresetPicker))
    await pilot.press("home", "enter")
    await until(pilot, lambda: app.conversation_screen.session.preset_name == "precise")
    app.conversation_screen.preset_dialogs.edit_prompt()
    await until(pilot, lambda: isinstance(app.screen, SystemPromptEditor))
    await pilot.press(*" Be kind.", "ctrl+s")
    await until(pilot, lambda: app.conversation_screen.session.own_system_prompt is not None)
    await steady(pilot)


class TestPresetDialog:
    def test_small(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """ "Preset for this conversation": `precise` with `gpt-4o-mini · temperature 0.2 ·
        top_p 0.5 · max 300 tokens` and its prompt's first line, `● poet` (the one in
        force, highlighted) with `“Answer in verse.” …`, `plain` with `top_p 0.9` and `no
        system prompt of its own`, then `no preset`, each detail line indented under its
        name; Cancel and Choose buttons; the footer with `⏎ Choose` and `esc Cancel`."""
        app = build(extra=PRESETS)
        assert snap_compare(app, run_before=choose_dialog, terminal_size=SMALL)

    def test_large(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The same dialog at 160x45, over the conversation and the context side."""
        app = build(extra=PRESETS)
        assert snap_compare(app, run_before=choose_dialog, terminal_size=LARGE)


class TestNoPresets:
    def test_small(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """`No presets yet. Add a [presets.NAME] table to /home/you/.config/ctxchat/
        config.toml and start ctxchat again; for example:` over a three-line example
        (`[presets.precise]`, its `system_prompt`, `temperature = 0.2`), and a Close
        button."""
        app = build()
        app.workspace.loaded = dataclasses.replace(app.workspace.loaded, path=SHOWN_CONFIG)

        async def run(pilot: Pilot[Any]) -> None:
            await steady(pilot)
            app.conversation_screen.preset_dialogs.choose()
            await until(pilot, lambda: isinstance(app.screen, PresetPicker))
            await steady(pilot)

        assert snap_compare(app, run_before=run, terminal_size=SMALL)


class TestSystemPromptEditor:
    def test_small(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """ "System prompt of this conversation": `In force: preset "precise". Saved, it
        becomes this conversation's own.`, the prompt with ` Be kind.` added, `16 tokens`
        under it; Cancel, `Use the preset's ("precise")` (dimmed: the conversation has no
        prompt of its own) and Save; the footer with `^s Save`, `esc Cancel`."""
        app = build(extra=PRESETS)
        assert snap_compare(app, run_before=editing, terminal_size=SMALL)

    def test_large(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The same editor at 160x45, over the conversation and the context side."""
        app = build(extra=PRESETS)
        assert snap_compare(app, run_before=editing, terminal_size=LARGE)


class TestSystemLayerAfterAChange:
    def test_large(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """After choosing "precise" and saving its prompt with ` Be kind.` added: the
        header says `test · gpt-4o-mini · preset precise · mode: personalization`; the
        system layer holds the new prompt and, under it, `preset precise (temperature 0.2
        · top_p 0.5) · prompt: the conversation's own`; the budget keeps 300 tokens for
        the reply."""
        app = with_turns(build(extra=PRESETS))
        assert snap_compare(app, run_before=chosen_with_own_prompt, terminal_size=LARGE)
