"""The cache-friendly prefix: how much of a request repeats the previous one byte for byte."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxchat.core.plan import SentMessage


@dataclass(frozen=True, slots=True)
class SharedPrefix:
    """Leading messages (and their tokens) identical to the previous request's."""

    messages: int
    tokens: int


def shared_prefix(previous: Sequence[SentMessage], current: Sequence[SentMessage]) -> SharedPrefix:
    """Compare two requests message by message from the start.

    Provider prompt caches match on an identical start of the request, so the first
    message that differs in role or content ends the shared prefix.
    """
    count = tokens = 0
    for before, now in zip(previous, current, strict=False):
        if before.role != now.role or before.content != now.content:
            break
        count += 1
        tokens += now.tokens
    return SharedPrefix(count, tokens)
