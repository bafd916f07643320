"""Choose the format a conversation is exported in, and the folder it is written to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import plain
from ctxchat.tui.widgets.footer import KeyFooter

ExportFormat = Literal["markdown", "json"]


@dataclass(frozen=True, slots=True)
class ExportChoice:
    """The format and the folder the user chose (the folder as typed, `~` expanded)."""

    export_format: ExportFormat
    folder: Path


class ExportFormatScreen(Dialog[ExportChoice | None]):
    """Markdown (to read) or JSON (everything, for tools), into a folder the user can change;
    dismiss with the choice or None."""

    DEFAULT_CSS = """
    ExportFormatScreen {
        & > Vertical {
            width: 72;
            max-width: 90%;
            height: auto;
            padding: 1 2;
        }
        .export--hint {
            color: $text-muted;
            margin-bottom: 1;
        }
        #export-folder { margin-bottom: 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ExportFormatScreen")

    def __init__(self, title: str, folder: Path, initial: ExportFormat = "markdown") -> None:
        super().__init__()
        self._title = title
        self._folder = folder
        self._initial = initial

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(f"Export “{self._title}”"), classes="dialog--title")
            yield Static(
                "Markdown reads well anywhere; JSON keeps every field, for other tools. "
                "Secrets are never exported.",
                classes="export--hint",
                markup=False,
            )
            yield Label("Into the folder (created if it does not exist):")
            yield Input(str(self._folder), id="export-folder")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("JSON", id="json", variant="primary" if self._json else "default")
                yield Button(
                    "Markdown", id="markdown", variant="default" if self._json else "primary"
                )
        yield KeyFooter()

    @property
    def _json(self) -> bool:
        return self._initial == "json"

    def on_mount(self) -> None:
        self.query_one(f"#{self._initial}", Button).focus()

    @on(Button.Pressed, "#markdown")
    def _markdown(self) -> None:
        self.action_choose("markdown")

    @on(Button.Pressed, "#json")
    def _json_pressed(self) -> None:
        self.action_choose("json")

    @on(Input.Submitted, "#export-folder")
    def action_export(self) -> None:
        self.action_choose(self._initial)

    def action_choose(self, choice: ExportFormat) -> None:
        typed = self.query_one("#export-folder", Input).value.strip()
        folder = Path(typed).expanduser() if typed else self._folder
        self.dismiss(ExportChoice(choice, folder))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
