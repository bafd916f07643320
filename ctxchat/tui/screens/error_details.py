"""A provider error in full: the sentence, what to do about it, and what the server said."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import plain
from ctxchat.tui.widgets.footer import KeyFooter


class ErrorDetails(Dialog[bool]):
    """Show one error; dismiss True when the user asks to retry, False to close.

    `detail` is the server's own text, already redacted by the model client.
    """

    DEFAULT_CSS = """
    ErrorDetails {
        & > Vertical {
            width: 76;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            border: thick $error 70%;
            padding: 1 2;
        }
        #error-message {
            text-style: bold;
            height: auto;
        }
        #error-action {
            height: auto;
            margin-top: 1;
        }
        #error-detail-scroll {
            height: auto;
            max-height: 12;
            margin-top: 1;
            background: $boost;
            padding: 0 1;
        }
        #error-detail {
            color: $text-muted;
        }
        .dialog--buttons {
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ErrorDetails")

    def __init__(
        self,
        message: str,
        action: str = "",
        *,
        detail: str = "",
        can_retry: bool = False,
        title: str = "The request failed",
    ) -> None:
        super().__init__()
        self._title = title
        self._message = message
        self._action = action
        self._detail = detail
        self._can_retry = can_retry

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = self._title
            yield Static(plain(self._message), id="error-message")
            if self._action:
                yield Static(plain(self._action), id="error-action")
            if self._detail:
                with VerticalScroll(id="error-detail-scroll"):
                    yield Static(plain(self._detail), id="error-detail")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Close", id="close")
                if self._can_retry:
                    yield Button("Retry", id="retry", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#retry" if self._can_retry else "#close", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self._can_retry or action != "retry"

    @on(Button.Pressed, "#retry")
    def action_retry(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        self.dismiss(False)
