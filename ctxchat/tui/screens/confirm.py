"""A yes/no question in a small dialog: deleting, opening a link, anything worth a second look."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import plain
from ctxchat.tui.widgets.footer import KeyFooter


class ConfirmScreen(Dialog[bool]):
    """Ask `question`; dismiss with True when the user confirms, False otherwise.

    `danger` paints the confirm button red and focuses Cancel first, so a stray enter does
    not delete anything; nor does a stray `y`: only `n` answers by letter there (no is
    always safe), yes takes the button.
    """

    DEFAULT_CSS = """
    ConfirmScreen {
        & > Vertical {
            width: 64;
            max-width: 90%;
            height: auto;
            padding: 1 2;
        }
        &.-danger > Vertical {
            border: thick $error 70%;
        }
        #confirm-question {
            width: 1fr;
            margin-bottom: 1;
        }
        #confirm-detail {
            width: 1fr;
            color: $text-muted;
            margin-bottom: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ConfirmScreen")

    def __init__(
        self,
        question: str,
        confirm_label: str = "OK",
        danger: bool = False,
        *,
        detail: str = "",
    ) -> None:
        super().__init__(classes="-danger" if danger else None)
        self._question = question
        self._confirm_label = confirm_label
        self._danger = danger
        self._detail = detail

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self._question), id="confirm-question")
            if self._detail:
                yield Static(plain(self._detail), id="confirm-detail")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(
                    plain(self._confirm_label),
                    id="confirm",
                    variant="error" if self._danger else "primary",
                )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#cancel" if self._danger else "#confirm", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A question that deletes can pop up under someone typing: "you…" must not say yes.
        return not (action == "confirm" and self._danger)

    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_accept(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
