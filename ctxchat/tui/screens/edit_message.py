"""Edit a sent message and send it again, replacing the turns after it or keeping them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, RadioButton, RadioSet, Static, TextArea

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, plain
from ctxchat.tui.widgets.footer import KeyFooter

LaterTurns = Literal["replace", "branch"]


@dataclass(frozen=True, slots=True)
class EditResult:
    """The new text, and what happens to the turns after the edited message.

    "replace": they are set aside and the conversation goes on from the edit; "branch": they
    are kept as a branch the user can go back to.
    """

    message_id: int
    text: str
    later: LaterTurns


class EditMessageScreen(Dialog[EditResult | None]):
    """The message's text in an editor and the choice about later turns; None on cancel."""

    DEFAULT_CSS = """
    EditMessageScreen {
        & > Vertical {
            width: 84;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 1;
        }
        TextArea {
            height: 10;
            max-height: 50vh;
        }
        #edit-later-label {
            margin-top: 1;
            color: $text-muted;
        }
        RadioSet {
            width: 1fr;
        }
        #edit-error {
            color: $error;
            height: auto;
        }
        #edit-buttons {
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("EditMessageScreen")

    def __init__(self, message_id: int, text: str, later_count: int) -> None:
        super().__init__()
        self._message_id = message_id
        self._text = text
        self._later_count = later_count

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = "Edit and resend"
            yield TextArea(clean(self._text), soft_wrap=True, id="edit-text")
            if self._later_count:
                count = self._later_count
                turns = f"{count} message{'s' if count != 1 else ''}"
                yield Static(plain(f"The {turns} after this one:"), id="edit-later-label")
                with RadioSet(id="edit-later"):
                    yield RadioButton(
                        plain("keep them as a branch beside the new one"),
                        value=True,
                        name="branch",
                        id="later-branch",
                    )
                    yield RadioButton(
                        plain("replace them: the conversation goes on from the edited message"),
                        name="replace",
                        id="later-replace",
                    )
            yield Static("", id="edit-error")
            with Horizontal(id="edit-buttons", classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Send", id="send", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    @on(Button.Pressed, "#send")
    def action_send(self) -> None:
        text = self.query_one(TextArea).text
        if not text.strip():
            self.query_one("#edit-error", Static).update("The message cannot be empty.")
            return
        later: LaterTurns = "replace"
        if self._later_count:
            pressed = self.query_one(RadioSet).pressed_button
            later = "branch" if pressed is not None and pressed.name == "branch" else "replace"
        self.dismiss(EditResult(self._message_id, text.strip(), later))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
