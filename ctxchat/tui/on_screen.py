"""The conversation on screen: its session, and the facts of its newest reply from the store."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.chat.session import ChatSession
from ctxchat.core.history import MessageStatus
from ctxchat.store import StoredMessage


@dataclass(frozen=True, slots=True)
class ReplyFacts:
    """What is known about the newest reply's request, as stored with that reply."""

    reply_tokens: int | None = None
    server_prompt_tokens: int | None = None
    sent_tokens: int | None = None
    cached_tokens: int | None = None
    status: MessageStatus | None = None

    @classmethod
    def of(cls, reply: StoredMessage | None) -> ReplyFacts:
        """The facts of `reply` (none when the newest message is not a reply)."""
        if reply is None or reply.role != "assistant":
            return cls()
        return cls(
            reply_tokens=reply.tokens if reply.content or reply.reasoning else None,
            server_prompt_tokens=reply.prompt_tokens,
            sent_tokens=reply.estimated_prompt_tokens,
            cached_tokens=reply.cached_tokens,
            status=reply.status,
        )

    def status_line(self) -> str:
        """The line under the conversation: the reply's tokens apart from the prompt's
        counts. A reply that failed, stopped or was cut says so on its own marker line,
        once: the status line then tells nothing of it."""
        if self.status is not MessageStatus.COMPLETE:
            return ""
        parts = []
        if self.reply_tokens is not None:
            parts.append(f"reply {self.reply_tokens:,} tokens")
        counts = []
        if self.server_prompt_tokens is not None:
            counts.append(f"server {self.server_prompt_tokens:,}")
        if self.sent_tokens is not None:
            counts.append(f"ctxchat {self.sent_tokens:,}")
        if counts:
            parts.append(f"prompt: {', '.join(counts)}")
        return " · ".join(parts)


class OnScreen:
    """Owns the conversation on screen: its session, and its newest reply's facts read from
    the store. Opening another conversation makes a new one, so nothing carries over."""

    def __init__(self, session: ChatSession) -> None:
        self.session = session

    def reply_facts(self) -> ReplyFacts:
        conversation = self.session.conversation_id
        if conversation is None:
            return ReplyFacts()
        return ReplyFacts.of(self.session.store.newest_message(conversation))
