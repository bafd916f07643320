"""ReplyWriter: saves a streamed reply as it arrives, so a crash loses only its last moments."""

from __future__ import annotations

import time
from collections.abc import Callable

from ctxchat.store.ending import ReplyEnding
from ctxchat.store.errors import StoreError
from ctxchat.store.records import StoredMessage
from ctxchat.store.replies import Replies

DEFAULT_INTERVAL = 0.25


class ReplyWriter:
    """Collects a reply's deltas and saves them at most every `interval` seconds.

    Each save is one small transaction, so saving every few hundred milliseconds costs
    little while a `kill -9` loses at most `interval` seconds of text. Saves happen when a
    delta arrives; a caller whose stream can pause may call `flush()` from a timer.
    """

    def __init__(
        self,
        replies: Replies,
        message_id: int,
        *,
        interval: float = DEFAULT_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._replies = replies
        self.message_id = message_id
        self.interval = interval
        self._clock = clock
        self._parts: list[str] = []
        self._reasoning: list[str] = []
        self._dirty = False
        self._saved = ""
        self._last_save = clock()
        self._closed = False

    @classmethod
    def start(
        cls,
        replies: Replies,
        conversation_id: int,
        *,
        model: str | None,
        estimated_prompt_tokens: int | None = None,
        parent_id: int | None = None,
        interval: float = DEFAULT_INTERVAL,
    ) -> ReplyWriter:
        """Start a reply in the store and a writer for it."""
        reply = replies.start_reply(
            conversation_id,
            model=model,
            estimated_prompt_tokens=estimated_prompt_tokens,
            parent_id=parent_id,
        )
        return cls(replies, reply.id, interval=interval)

    @property
    def content(self) -> str:
        """Everything received so far."""
        return "".join(self._parts)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    @property
    def saved_content(self) -> str:
        """The text the database holds now (what a crash at this moment would keep)."""
        return self._saved

    def append(self, text: str = "", reasoning: str = "") -> bool:
        """Add a delta of the reply (and/or of its reasoning); returns whether it saved now."""
        if self._closed:
            raise StoreError(f"The writer of reply {self.message_id} is already closed.")
        if text:
            self._parts.append(text)
            self._dirty = True
        if reasoning:
            self._reasoning.append(reasoning)
            self._dirty = True
        if self._dirty and self._clock() - self._last_save >= self.interval:
            self.flush()
            return True
        return False

    def flush(self) -> None:
        """Save what arrived since the last save (nothing happens if nothing did)."""
        if not self._dirty or self._closed:
            return
        content, reasoning = self.content, self.reasoning
        self._replies.save_partial(self.message_id, content, reasoning)
        self._parts, self._reasoning = [content], [reasoning]  # keeps the next join short
        self._saved = content
        self._dirty = False
        self._last_save = self._clock()

    def close(self, ending: ReplyEnding) -> StoredMessage:
        """Finish the reply as `ending` says; its text is the whole reply (`content`)."""
        if self._closed:
            raise StoreError(f"The writer of reply {self.message_id} is already closed.")
        message = self._replies.finish_reply(self.message_id, ending)
        self._closed = True
        self._saved = message.content
        self._dirty = False
        return message
