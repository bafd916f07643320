"""The frame every dialog shares, and what typing does in one."""

from __future__ import annotations

from typing import TypeVar

from textual import events, on
from textual.widget import Widget
from textual.widgets import Input, TextArea

from ctxchat.tui.screens.hands_typing_back import HandsTypingBack

ResultType = TypeVar("ResultType")


class Dialog(HandsTypingBack[ResultType]):
    """A modal dialog: one framed column in the middle of the screen.

    Each dialog sets its column's size and padding (and may recolour the frame); the frame,
    where its title sits, the bold `.dialog--title` line and the row of buttons on the right
    (`.dialog--buttons`) are the same in all of them. Each yields its own footer
    (`KeyFooter`), so the keys shown are the dialog's, not the screen's under it.

    Typing is never lost: it goes into the dialog's text box, also when the focus is on
    one of its buttons or lists (into the box typed in last, else the first); a dialog
    without a text box closes at the first key typed, which goes on, with the keys after
    it, to the composer (`HandsTypingBack`).
    """

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        & > Vertical {
            border: thick $primary 60%;
            border-title-align: left;
            background: $surface;
        }
        .dialog--title {
            text-style: bold;
        }
        .dialog--buttons {
            height: auto;
            align-horizontal: right;
            & > Button {
                margin-left: 2;
            }
        }
    }
    """

    _typed_in: Widget | None = None

    def typing_box(self) -> Input | TextArea | None:
        """The text box typing goes into: the one typed in last if it can still take it,
        else the first that can; None when the dialog shows none."""
        boxes = [
            widget
            for widget in self.focus_chain
            if isinstance(widget, Input) or (isinstance(widget, TextArea) and not widget.read_only)
        ]
        for box in boxes:
            if box is self._typed_in:
                return box
        return boxes[0] if boxes else None

    @on(events.DescendantFocus)
    def _remember_box(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, Input | TextArea):
            self._typed_in = event.widget

    def hands_back(self, event: events.Key) -> bool:
        return super().hands_back(event) and self.typing_box() is None

    def takes_typing(self, text: str) -> bool:
        # Into the box without moving the focus: a key that follows mid-burst would reach
        # the box before the ones still on their way to the focused widget.
        if isinstance(self.focused, Input | TextArea):
            return True  # the box with the focus took it (a TextArea lets a paste bubble on)
        box = self.typing_box()
        if box is None:
            return False
        if isinstance(box, Input):
            box.insert_text_at_cursor(text)
        else:
            box.insert(text)
        return True
