"""UsageEstimate: what one conversation's recent replies most likely used, as worked out so far."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession
from ctxchat.chat.usage import UsageTracker, UsageView

UsageKey = tuple[int | None, tuple[str, ...], bool]
"""What an estimate is worked out for: the newest reply, the memory entries, whether recall
searches by meaning."""


class UsageEstimate:
    """The estimate of one conversation (an estimate, never sent to the model): the
    tracker that estimates each reply once, the view worked out last and what for, and
    what the estimate being worked out (in a thread) is for."""

    def __init__(self, conversation_id: int | None) -> None:
        self.conversation_id = conversation_id
        self.tracker = UsageTracker()
        self.view = UsageView()
        self.key: UsageKey | None = None
        """What `view` was worked out for."""
        self.wanted: UsageKey | None = None
        """What the estimate being worked out is for."""

    def key_now(self, session: ChatSession) -> UsageKey:
        """What an estimate for `session`'s conversation as it is now would be for."""
        memory = tuple(entry.ref for entry in session.memory())
        semantic = session.semantic is not None and session.semantic.ready
        return (self.tracker.newest_reply(session), memory, semantic)

    def wants(self, key: UsageKey) -> bool:
        """Whether `key` needs working out (neither shown nor being worked out); from now
        on it is being worked out."""
        if key in (self.key, self.wanted):
            return False
        self.wanted = key
        return True

    def work_out(self, session: ChatSession) -> UsageView:
        """The view for `session` now (slow: run it in a thread)."""
        semantic = session.semantic
        meaning = semantic.closeness if semantic is not None and semantic.ready else None
        return self.tracker.view(session, meaning)
