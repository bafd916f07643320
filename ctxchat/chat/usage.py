"""What the recent replies of a conversation most likely used: an estimate for the panels."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ctxchat.chat.session import ChatSession
from ctxchat.core.attribution import Source, Use, estimate_use, never_used, request_sources
from ctxchat.core.memory import switched_off

RECENT_REPLIES = 20
"""How many replies back "never used" looks."""

Meaning = Callable[[str, Sequence[Source]], Mapping[str, float]]
"""Closeness in meaning of a reply to each source, by ref (the embeddings extra)."""


@dataclass(frozen=True, slots=True)
class UsageView:
    """What the panels show: the newest reply's uses, and what no recent reply used."""

    used: Mapping[str, Use] = field(default_factory=dict)
    """Sources the newest reply most likely drew on, by ref."""
    idle: frozenset[str] = frozenset()
    """Current memory refs none of the last `replies` replies used."""
    replies: int = 0
    """How many replies were looked at."""
    newest: int | None = None
    """The id of the newest reply looked at."""


class UsageTracker:
    """Estimates each reply once and keeps the result; the newest ones make the view."""

    def __init__(self, last: int = RECENT_REPLIES) -> None:
        self.last = last
        self._uses: dict[int, tuple[Use, ...]] = {}
        self._semantic: set[int] = set()

    def newest_reply(self, session: ChatSession) -> int | None:
        """The id of the conversation's newest complete reply."""
        for message in reversed(session.history()):
            if message.role == "assistant" and message.sendable:
                return message.id
        return None

    def view(self, session: ChatSession, meaning: Meaning | None = None) -> UsageView:
        """Estimate the replies not yet estimated (with meaning once it is available)."""
        history = session.history()
        replies = [m for m in history if m.role == "assistant" and m.sendable][-self.last :]
        if not replies:
            return UsageView()
        memory = session.memory()
        texts = {entry.ref: entry.text for entry in memory}
        texts |= {message.ref: message.content for message in history}
        for reply in replies:
            if reply.id in self._uses and (meaning is None or reply.id in self._semantic):
                continue
            plan = session.store.plans.load_plan(reply.id)
            sources = request_sources(plan, texts) if plan is not None else []
            close = meaning(reply.content, sources) if meaning is not None and sources else None
            self._uses[reply.id] = tuple(estimate_use(reply.content, sources, close))
            if meaning is not None:
                self._semantic.add(reply.id)
        # Only what a request could hold: a superseded or excluded entry (or one switched off
        # here) is never "unused".
        here = session.conversation_id
        refs = [
            entry.ref
            for entry in memory
            if entry.enabled and not entry.superseded and not switched_off(entry, here)
        ]
        ages = never_used(refs, [self._uses[r.id] for r in replies], self.last)
        return UsageView(
            used={use.ref: use for use in self._uses[replies[-1].id]},
            idle=frozenset(ref for ref, age in ages.items() if age is None),
            replies=len(replies),
            newest=replies[-1].id,
        )
