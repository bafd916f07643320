"""Ask which file to import (and, if the user wants to say it, which tool it comes from)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select, Static

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, plain
from ctxchat.tui.widgets.footer import KeyFooter

RECOGNISE = "recognise"
"""The choice that lets the file say which tool it comes from."""


@dataclass(frozen=True, slots=True)
class ImportChoice:
    """The file to import (`~` expanded) and the tool it comes from (None: recognise it)."""

    path: Path
    source: str | None


class ImportHistoryScreen(Dialog[ImportChoice | None]):
    """A path and, optionally, the tool; dismiss with the choice, or None."""

    DEFAULT_CSS = """
    ImportHistoryScreen {
        & > Vertical {
            width: 76;
            max-width: 90%;
            height: auto;
            padding: 1 2;
        }
        .import--hint { color: $text-muted; margin-bottom: 1; }
        #import-source { margin-bottom: 1; }
        #import-error { color: $error; height: auto; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ImportHistoryScreen")

    def __init__(self, sources: list[tuple[str, str]], path: str = "") -> None:
        """`sources`: (label, name) of every tool `--from` names."""
        super().__init__()
        self._sources = sources
        self._path = path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain("Import conversations"), classes="dialog--title")
            yield Static(
                "ChatGPT's or Claude.ai's conversations.json, simonw/llm's logs.db (read, "
                "never changed), an Open WebUI chat export or a ctxchat JSON export. "
                "Conversations imported before are left as they are.",
                classes="import--hint",
                markup=False,
            )
            yield Label("File:")
            yield Input(self._path, placeholder="~/Downloads/conversations.json", id="import-path")
            yield Label("From:")
            yield Select(
                [("Recognise it from the file", RECOGNISE), *self._sources],
                value=RECOGNISE,
                allow_blank=False,
                id="import-source",
            )
            yield Static("", id="import-error")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Import", id="import", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#import")
    def action_import(self) -> None:
        typed = self.query_one(Input).value.strip()
        error = self.query_one("#import-error", Static)
        if not typed:
            error.update("Type the path of the file to import.")
            return
        path = Path(typed).expanduser()
        if not path.is_file():
            error.update(plain(f"There is no file at {clean(str(path))}."))
            return
        source = self.query_one(Select).value
        self.dismiss(ImportChoice(path, None if source == RECOGNISE else str(source)))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
