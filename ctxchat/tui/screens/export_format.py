"""Choose the format a conversation is exported in."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import plain

ExportFormat = Literal["markdown", "json"]


class ExportFormatScreen(Dialog[ExportFormat | None]):
    """Markdown (to read) or JSON (everything, for tools); dismiss with the choice or None."""

    DEFAULT_CSS = """
    ExportFormatScreen {
        & > Vertical {
            width: 64;
            max-width: 90%;
            height: auto;
            padding: 1 2;
        }
        .export--hint {
            color: $text-muted;
            margin-bottom: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Do not export"),
        Binding(
            "m",
            "choose('markdown')",
            "Markdown",
            id="export.markdown",
            tooltip="Export as Markdown, to read",
        ),
        Binding(
            "j",
            "choose('json')",
            "JSON",
            id="export.json",
            tooltip="Export as JSON, with every stored field",
        ),
    ]

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(f"Export “{self._title}”"), classes="dialog--title")
            yield Static(
                "Markdown reads well anywhere; JSON keeps every field, for other tools. "
                "Secrets are never exported.",
                classes="export--hint",
                markup=False,
            )
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("JSON", id="json")
                yield Button("Markdown", id="markdown", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#markdown", Button).focus()

    @on(Button.Pressed, "#markdown")
    def _markdown(self) -> None:
        self.dismiss("markdown")

    @on(Button.Pressed, "#json")
    def _json(self) -> None:
        self.dismiss("json")

    def action_choose(self, choice: ExportFormat) -> None:
        self.dismiss(choice)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
