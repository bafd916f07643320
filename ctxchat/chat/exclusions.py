"""Leaving a turn out of the requests without deleting it, and including it again; and what
that does to the next request, told before anything is sent."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.chat.session import ChatSession
from ctxchat.core.exclusion import TokenDifference, pair_of, with_exclusions
from ctxchat.store import InvalidValue, StoredMessage

__all__ = ["ExclusionChange", "TokenDifference", "change_exclusion", "exclusion_difference"]


@dataclass(frozen=True, slots=True)
class ExclusionChange:
    """Messages excluded (or included again), and the next request before and after."""

    messages: tuple[StoredMessage, ...]
    excluded: bool
    difference: TokenDifference

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(message.id for message in self.messages)

    def describe(self) -> str:
        """`Excluded messages #3 and #4: the next request: 266 → 52 tokens (−214).`, or
        `Included message #3 again: …`."""
        ids = [f"#{message_id}" for message_id in self.ids]
        named = ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + f" and {ids[-1]}"
        noun = "message" if len(ids) == 1 else "messages"
        done = f"Excluded {noun} {named}" if self.excluded else f"Included {noun} {named} again"
        return f"{done}: {self.difference.describe()}."

    def to_dict(self) -> dict[str, object]:
        return {
            "conversation_id": self.messages[0].conversation_id if self.messages else None,
            "messages": list(self.ids),
            "excluded": self.excluded,
            "tokens_before": self.difference.before,
            "tokens_after": self.difference.after,
            "difference": self.difference.tokens,
        }


def targets(session: ChatSession, message_id: int, *, pair: bool) -> tuple[int, ...]:
    """The message, or with `pair` the question-and-answer pair it belongs to. Raises
    InvalidValue for a message that is not in the session's conversation."""
    history = session.history()
    ids = pair_of(history, message_id) if pair else ()
    if not ids:
        if not any(message.id == message_id for message in history):
            raise InvalidValue(
                f"Message {message_id} is not in conversation {session.conversation_id}."
            )
        ids = (message_id,)
    return ids


def exclusion_difference(
    session: ChatSession,
    message_id: int,
    *,
    excluded: bool = True,
    pair: bool = False,
    draft: str | None = None,
) -> TokenDifference:
    """What excluding the message (or its pair), or including it again, would do to the next
    request (with `draft` as its new message): nothing is changed or sent."""
    ids = targets(session, message_id, pair=pair)
    before = session.plan(draft)
    after = session.planning.plan_with_history(
        with_exclusions(session.history(), ids, excluded), draft
    )
    return TokenDifference.between(before, after)


def change_exclusion(
    session: ChatSession, message_id: int, *, excluded: bool = True, pair: bool = False
) -> ExclusionChange:
    """Exclude the message (or its pair) from the requests, or include it again; the store
    keeps it either way (search still finds it)."""
    ids = targets(session, message_id, pair=pair)
    before = session.plan(None)
    changed = session.set_excluded(ids, excluded)
    after = session.plan(None)
    return ExclusionChange(tuple(changed), excluded, TokenDifference.between(before, after))
