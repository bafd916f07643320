"""A one-line prompt for a conversation's new title."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, plain
from ctxchat.tui.widgets.footer import KeyFooter

MAX_TITLE = 200


class RenameScreen(Dialog[str | None]):
    """Edit a title; dismiss with the new title (trimmed, never empty) or None on cancel."""

    DEFAULT_CSS = """
    RenameScreen {
        & > Vertical {
            width: 64;
            max-width: 90%;
            height: auto;
            padding: 1 2;
        }
        #rename-error {
            color: $error;
            height: auto;
        }
        .dialog--buttons {
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("RenameScreen")

    def __init__(self, title: str, *, heading: str = "Rename conversation") -> None:
        super().__init__()
        self._title = title
        self._heading = heading

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self._heading), classes="dialog--title")
            yield Input(clean(self._title), max_length=MAX_TITLE, id="rename-input")
            yield Static("", id="rename-error")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Rename", id="save", variant="primary")
        yield KeyFooter()

    @on(Input.Submitted)
    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        title = " ".join(self.query_one(Input).value.split())
        if not title:
            self.query_one("#rename-error", Static).update("A title cannot be empty.")
            return
        self.dismiss(title)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
