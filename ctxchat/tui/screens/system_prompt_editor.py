"""Edit the conversation's system prompt, its token count shown as it is typed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static, TextArea

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, content, tokens
from ctxchat.tui.widgets.footer import KeyFooter


@dataclass(frozen=True, slots=True)
class PromptEdit:
    """What to do with the conversation's own prompt: `text` becomes it ("" sends none);
    None drops it, so its preset's (else the config's) applies again."""

    text: str | None


@dataclass(frozen=True, slots=True)
class PromptInForce:
    """The prompt the next request sends, where it comes from (`source`, in words), whether
    it is the conversation's own, and where dropping that own one leads (`default_source`)."""

    text: str
    source: str
    own: bool
    default_source: str


class SystemPromptEditor(Dialog[PromptEdit | None]):
    """The prompt in force in an editor: ctrl+s keeps it as the conversation's own, the
    default key drops the conversation's own, Escape discards (asking first when the text
    changed). `count` counts a system message of the text, as the plan does."""

    DEFAULT_CSS = """
    SystemPromptEditor {
        & > Vertical {
            width: 90;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
        }
        #prompt-source {
            color: $text-muted;
            height: auto;
        }
        TextArea {
            height: 12;
            max-height: 50vh;
        }
        #prompt-count {
            color: $text-muted;
            height: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("SystemPromptEditor")

    def __init__(self, prompt: PromptInForce, count: Callable[[str], int]) -> None:
        super().__init__()
        self._prompt = prompt
        self._shown_text = clean(prompt.text)
        self._count = count

    def compose(self) -> ComposeResult:
        prompt = self._prompt
        with Vertical() as dialog:
            dialog.border_title = "System prompt of this conversation"
            kept = "" if prompt.own else " Saved, it becomes this conversation's own."
            yield Static(content(f"In force: {prompt.source}.{kept}"), id="prompt-source")
            yield TextArea(self._shown_text, soft_wrap=True, id="prompt-text")
            yield Static(id="prompt-count")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(content(f"Use {prompt.default_source}"), id="default")
                yield Button("Save", id="save", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#default", Button).disabled = not self._prompt.own
        self._show_count()
        area = self.query_one(TextArea)
        area.move_cursor(area.document.end)  # where a line is added
        area.focus()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    @property
    def changed(self) -> bool:
        return self.text != self._shown_text

    @on(TextArea.Changed)
    def _show_count(self) -> None:
        text = self.text
        count = self._count(text) if text else 0
        words = f"{tokens(count)} tokens" if text else 'no system message ("" sends none)'
        self.query_one("#prompt-count", Static).update(content(words))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Dropping the conversation's own prompt means something only when it has one.
        return self._prompt.own or action != "default"

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        # Unchanged, nothing is written: a preset's prompt stays the preset's.
        self.dismiss(PromptEdit(self.text) if self.changed else None)

    @on(Button.Pressed, "#default")
    def action_default(self) -> None:
        if self._prompt.own:
            self.dismiss(PromptEdit(None))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        if not self.changed:
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(
            ConfirmScreen("Discard the changes to the system prompt?", "Discard"), answered
        )
