"""Leaving turns out without deleting them: which messages a question-and-answer pair holds,
and what excluding them would do to the next request."""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ctxchat.core.history import HistoryMessage
from ctxchat.core.plan import ContextPlan


def pair_of(history: Sequence[HistoryMessage], message_id: int) -> tuple[int, ...]:
    """The ids of the question-and-answer pair `message_id` belongs to, in order: a user
    message and the replies after it, up to the next user message. A reply with no user
    message before it is a pair of its own. Empty when `history` does not hold the message."""
    at = bisect.bisect_left(history, message_id, key=lambda m: m.id)
    if at == len(history) or history[at].id != message_id:
        return ()
    start = at
    while start > 0 and history[start].role != "user":
        start -= 1
    if history[start].role != "user":
        start = at
    end = start + 1
    while end < len(history) and history[end].role != "user":
        end += 1
    return tuple(m.id for m in history[start:end])


def with_exclusions(
    history: Sequence[HistoryMessage], ids: Collection[int], excluded: bool
) -> list[HistoryMessage]:
    """`history` as it would be with the messages `ids` excluded (or included again)."""
    return [
        dataclasses.replace(m, excluded=excluded) if m.id in ids and m.excluded != excluded else m
        for m in history
    ]


@dataclass(frozen=True, slots=True)
class TokenDifference:
    """What a change (excluding a turn, say) does to the next request, before anything is sent:
    its tokens before and after, and the messages it sends before and after."""

    before: int
    after: int
    messages_before: int
    messages_after: int

    @classmethod
    def between(cls, before: ContextPlan, after: ContextPlan) -> TokenDifference:
        return cls(before.tokens, after.tokens, len(before.messages), len(after.messages))

    @property
    def tokens(self) -> int:
        """After minus before: negative when the request gets smaller."""
        return self.after - self.before

    def describe(self) -> str:
        """`the next request: 1,204 → 1,062 tokens (−142)`."""
        change = self.tokens
        sign = "+" if change > 0 else "\u2212" if change < 0 else "±"
        return (
            f"the next request: {self.before:,} \u2192 {self.after:,} tokens "
            f"({sign}{abs(change):,})"
        )
