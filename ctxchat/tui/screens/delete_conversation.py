"""Deleting a conversation: what goes, and what happens to its own memory entries."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from ctxchat.chat.deletion import ConversationDeletion
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import plain
from ctxchat.tui.widgets.footer import KeyFooter

DeleteChoice = Literal["keep-memory", "with-memory"]


class DeleteConversationScreen(Dialog[DeleteChoice | None]):
    """Ask before deleting a conversation. It names the memory entries scoped to it, which
    are kept (global, left out until included) unless the user picks "Delete with memory".

    Cancel has the focus first, so a stray Enter deletes nothing; no letter answers.
    """

    DEFAULT_CSS = """
    DeleteConversationScreen {
        & > Vertical {
            width: 72;
            max-width: 95%;
            height: auto;
            padding: 1 2;
            border: thick $error 70%;
        }
        #delete-question, #delete-memory, #delete-detail {
            width: 1fr;
            margin-bottom: 1;
        }
        #delete-detail {
            color: $text-muted;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("DeleteConversationScreen")

    def __init__(self, deletion: ConversationDeletion) -> None:
        super().__init__()
        self._deletion = deletion

    def compose(self) -> ComposeResult:
        deletion = self._deletion
        with Vertical():
            yield Static(plain(deletion.question()), id="delete-question")
            note = deletion.memory_note()
            if note:
                yield Static(plain(note), id="delete-memory")
            yield Static(plain("This cannot be undone."), id="delete-detail")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                label = "Delete, keep memory" if note else "Delete"
                yield Button(label, id="keep-memory", variant="error")
                if note:
                    yield Button("Delete all", id="with-memory", variant="error")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed, "#keep-memory")
    def action_delete(self) -> None:
        self.dismiss("keep-memory")

    @on(Button.Pressed, "#with-memory")
    def _with_memory(self) -> None:
        self.dismiss("with-memory")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
