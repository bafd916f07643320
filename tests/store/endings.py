"""Reply endings the store tests finish replies with."""

from __future__ import annotations

from ctxchat.core.history import MessageStatus
from ctxchat.store import ReplyEnding


def failed_with(error: str) -> ReplyEnding:
    """A reply that failed before any text came, `error` saying why."""
    return ReplyEnding(
        content="",
        status=MessageStatus.FAILED,
        tokens=0,
        exact=True,
        encoding="o200k_base",
        error=error,
    )
