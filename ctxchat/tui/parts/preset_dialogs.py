"""PresetDialogs: the conversation's preset and its system prompt, chosen and edited."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ctxchat.chat.session import ChatSession
from ctxchat.chat.workspace import Workspace
from ctxchat.config.errors import UnknownPreset
from ctxchat.tui.parts.part import Part

if TYPE_CHECKING:  # the dialogs load when first opened, not before the first frame
    from ctxchat.tui.screens.preset_picker import PresetChoice
    from ctxchat.tui.screens.system_prompt_editor import PromptEdit


class PresetDialogs(Part):
    """The preset dialog and the system prompt editor of the conversation on screen. Every
    change goes through the session (`choose_preset`, `set_system_prompt`), which remembers
    it with the conversation; `Changed` says the next request changed (and whether its
    model did: its server is then asked about it again)."""

    @dataclass
    class Changed(Message):
        """`session`'s preset or system prompt changed; `model_changed`: it talks to
        another model now."""

        session: ChatSession
        model_changed: bool = False

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace

    def choose(self) -> None:
        """Offer the config's presets (or say how to add one); the choice is kept."""
        from ctxchat.tui.screens.preset_picker import PresetPicker

        session = self.session
        if session is None or session.conversation_id is None:
            return
        picker = PresetPicker(
            list(session.settings.presets.values()),
            session.preset_name,
            self.workspace.loaded.path or self.workspace.locations.config_file,
        )

        def chosen(choice: PresetChoice | None) -> None:
            if choice is not None and choice.name != session.preset_name:
                self._choose(session, choice.name)

        self.app.push_screen(picker, chosen)

    def _choose(self, session: ChatSession, name: str | None) -> None:
        try:
            model_changed = session.choose_preset(name)
        except UnknownPreset as error:  # not offered, but never a traceback: one line
            self.notify(str(error), severity="error", markup=False)
            return
        self.post_up(lambda: self.Changed(session, model_changed))
        said = "no preset" if name is None else f'preset "{name}"'
        self.notify(
            f"This conversation uses {said}; its prompt: {session.system_prompt_source}.",
            markup=False,
        )

    def edit_prompt(self) -> None:
        """Edit the system prompt in force; saved, it is the conversation's own."""
        from ctxchat.tui.screens.system_prompt_editor import PromptInForce, SystemPromptEditor

        session = self.session
        if session is None or session.conversation_id is None:
            return
        preset = session.preset
        default = (
            f'the preset\'s ("{preset.name}")'
            if preset is not None and preset.system_prompt is not None
            else "the config's"
        )
        prompt = PromptInForce(
            session.system_prompt,
            session.system_prompt_source,
            session.own_system_prompt is not None,
            default,
        )

        def edited(edit: PromptEdit | None) -> None:
            if edit is not None:
                session.set_system_prompt(edit.text)
                self.post_up(lambda: self.Changed(session))
                self.notify(f"System prompt: {session.system_prompt_source}.", markup=False)

        editor = SystemPromptEditor(prompt, lambda text: session.count("system", text))
        self.app.push_screen(editor, edited)
