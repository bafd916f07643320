"""The frame every dialog shares."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")


class Dialog(ModalScreen[ResultType]):
    """A modal dialog: one framed column in the middle of the screen.

    Each dialog sets its column's size and padding (and may recolour the frame); the frame,
    where its title sits, the bold `.dialog--title` line and the row of buttons on the right
    (`.dialog--buttons`) are the same in all of them.
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
