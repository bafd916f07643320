"""LiveTurn: the reply being streamed, as one object: what arrived, who draws it, whether it streams."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxchat.tui.widgets.message_item import MessageItem


class LiveTurn:
    """The one reply streaming now (the reply worker runs one at a time).

    It holds the text and reasoning received so far, how much of the text is drawn, the
    item drawing it (which draws from here: a fresh item, when the conversation is opened
    again, draws it whole), and the one flag that says a reply is streaming: the app, the
    conversation pane and the reply's item ask it. The conversation on
    screen owns it (`OnScreen.live`); the store's copy is saved by
    `store/writer.py: ReplyWriter`, in the chat layer.
    """

    def __init__(self, conversation_id: int | None, reply_id: int | None = None) -> None:
        self.conversation_id = conversation_id
        self.reply_id = reply_id
        """The reply's id in the store, once the turn has started it."""
        self.item: MessageItem | None = None
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self.drawn = 0
        """How much of `text` the item has handed to its Markdown (written, or shown)."""
        self._streaming = True
        self.catching_up = asyncio.Lock()
        """Held while a fresh item is brought up to date (the next delta and a reopening
        may both ask)."""

    @property
    def streaming(self) -> bool:
        """Whether the reply still streams (until the turn ends, however it ends)."""
        return self._streaming

    def received(self, text: str, reasoning: str) -> None:
        """A delta of the reply (and/or of its reasoning) arrived."""
        if text:
            self._text.append(text)
        if reasoning:
            self._reasoning.append(reasoning)

    @property
    def text(self) -> str:
        """The reply's text received so far."""
        if len(self._text) > 1:
            self._text = ["".join(self._text)]  # joined when asked, not per delta
        return self._text[0] if self._text else ""

    @property
    def reasoning(self) -> str:
        if len(self._reasoning) > 1:
            self._reasoning = ["".join(self._reasoning)]
        return self._reasoning[0] if self._reasoning else ""

    def undrawn(self) -> str:
        """The text received that the item has not drawn yet; from now on it counts as drawn."""
        text = self.text
        rest, self.drawn = text[self.drawn :], len(text)
        return rest

    def has_undrawn(self) -> bool:
        return sum(map(len, self._text)) > self.drawn

    def ended(self) -> None:
        """The turn is over (finished, failed or stopped): nothing streams any more."""
        self._streaming = False
