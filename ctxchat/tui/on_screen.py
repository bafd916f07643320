"""The conversation on screen: its session, the reply streaming, and its newest reply's facts."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.chat.session import ChatSession
from ctxchat.core.history import MessageStatus
from ctxchat.core.plan import ContextPlan
from ctxchat.store import StoredMessage
from ctxchat.tui.live_turn import LiveTurn


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
    """Owns the conversation on screen: its session, the reply streaming (`live`), the plan
    drawn for it, its status line and its newest reply's facts read from the store.

    Opening another conversation makes a new one, so nothing of the last conversation
    carries over, except a reply still streaming: it goes on into the store, and the new
    owner holds it on (`replaced_by`) until it ends or its conversation is back on screen.
    """

    def __init__(self, session: ChatSession, live: LiveTurn | None = None) -> None:
        self.session = session
        self.live = live
        """The reply streaming now: in this conversation, or in one left while it streamed."""
        self.plan: ContextPlan | None = None
        """The plan drawn last for this conversation: what its next request sends."""

    def replaced_by(self, session: ChatSession) -> OnScreen:
        """The owner of `session`'s conversation, now on screen instead of this one."""
        return OnScreen(session, self.live)

    @property
    def streaming(self) -> bool:
        """Whether a reply streams (here or in a conversation left meanwhile)."""
        return self.live is not None and self.live.streaming

    def live_here(self) -> LiveTurn | None:
        """The reply streaming in this conversation, if one is."""
        live = self.live
        if live is None or live.conversation_id != self.session.conversation_id:
            return None
        return live

    def start_turn(self) -> LiveTurn:
        """A reply begins in this conversation."""
        self.live = LiveTurn(self.session.conversation_id)
        return self.live

    def end_turn(self, turn: LiveTurn) -> None:
        """`turn` is over: nothing streams."""
        turn.ended()
        if self.live is turn:
            self.live = None

    def status_line(self) -> str:
        """The line under the conversation: who is writing while its reply streams, else
        the newest reply's facts (or what can be done about it)."""
        live = self.live_here()
        if live is not None and live.streaming:
            return f"{self.session.model} is writing… (Esc stops)"
        return self.reply_facts().status_line()

    def reply_facts(self) -> ReplyFacts:
        conversation = self.session.conversation_id
        if conversation is None:
            return ReplyFacts()
        return ReplyFacts.of(self.session.store.newest_message(conversation))
