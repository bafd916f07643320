"""A dialog holding what background work brought back: typing is never taken by it."""

from __future__ import annotations

from typing import TypeVar

from textual import events

from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.screens.hands_typing_back import HandsTypingBack

ResultType = TypeVar("ResultType")


class ResultDialog(Dialog[ResultType], HandsTypingBack[ResultType]):
    """The answer to a request that took a while (the model's memory proposals, the
    server's model list), shown over the conversation.

    Opened `unasked` (the answer came while the user waited, not at their keypress), every
    key that reaches it before it is first drawn was meant for what the user saw: it closes
    the dialog and goes back, with the keys after it, to the composer (an Enter sends the
    draft, never acts here). Once it is on screen, printable keys it has no use for do the
    same (`HandsTypingBack`). The opener keeps what a dialog closed so holds
    (`handed_back`) for its key to open again.
    """

    def __init__(self, *, unasked: bool = False) -> None:
        super().__init__()
        self.seen = not unasked
        """Whether the dialog was drawn before any key reached it (always, when opened by
        a key)."""

    def on_mount(self) -> None:
        if not self.seen:
            # After the next refresh: the dialog is on the screen, for eyes to see.
            self.call_after_refresh(self._drawn)

    def _drawn(self) -> None:
        self.seen = True

    def hands_back(self, event: events.Key) -> bool:
        return not self.seen or super().hands_back(event)
