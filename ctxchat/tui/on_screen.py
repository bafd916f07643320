"""The conversation on screen: its session, the reply streaming, and its newest reply's facts."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxchat.chat.session import ChatSession
from ctxchat.chat.usage import UsageTracker, UsageView
from ctxchat.core.history import MessageStatus
from ctxchat.core.plan import ContextPlan
from ctxchat.store import StoredMessage
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.reply_failures import ReplyFailures
from ctxchat.tui.text import model_name

if TYPE_CHECKING:
    from ctxchat.model.errors import ProviderError

# What a usage estimate was worked out for: the newest reply, the memory entries, whether
# recall searched by meaning.
UsageKey = tuple[int | None, tuple[str, ...], bool]


@dataclass(frozen=True, slots=True)
class FindPlace:
    """The find bar's hit shown in this conversation: for which words, which message."""

    query: str
    message_id: int


@dataclass(frozen=True, slots=True)
class ReplyFacts:
    """What is known about the newest reply's request, as stored with that reply."""

    reply_tokens: int | None = None
    """ctxchat's count of the reply: what it costs in the next requests."""
    server_reply_tokens: int | None = None
    """The server's own count of what the model wrote (`usage.completion_tokens`)."""
    server_prompt_tokens: int | None = None
    sent_tokens: int | None = None
    cached_tokens: int | None = None
    status: MessageStatus | None = None

    @classmethod
    def of(cls, reply: StoredMessage | None) -> ReplyFacts:
        """The facts of `reply` (none when the newest message is not a reply)."""
        if reply is None or reply.role != "assistant":
            return cls()
        said = bool(reply.content or reply.reasoning)
        return cls(
            reply_tokens=reply.tokens if said else None,
            server_reply_tokens=reply.completion_tokens if said else None,
            server_prompt_tokens=reply.prompt_tokens,
            sent_tokens=reply.estimated_prompt_tokens,
            cached_tokens=reply.cached_tokens,
            status=reply.status,
        )

    def status_line(self) -> str:
        """The line under the conversation: the reply's and the prompt's counts, the
        server's beside ctxchat's (`reply: server 8, ctxchat 12 · prompt: server 17,
        ctxchat 19`). A reply that failed, stopped or was cut says so on its own marker
        line, once: the status line then tells nothing of it."""
        if self.status is not MessageStatus.COMPLETE:
            return ""
        parts = [
            f"{what}: {counts}"
            for what, counts in (
                ("reply", _counts(self.server_reply_tokens, self.reply_tokens)),
                ("prompt", _counts(self.server_prompt_tokens, self.sent_tokens)),
            )
            if counts
        ]
        return " · ".join(parts)


def _counts(server: int | None, ctxchat: int | None) -> str:
    """`server 17, ctxchat 19`, of the counts there are."""
    counts = [
        f"{who} {count:,}"
        for who, count in (("server", server), ("ctxchat", ctxchat))
        if count is not None
    ]
    return ", ".join(counts)


class OnScreen:
    """Owns the conversation on screen: its session, the reply streaming (`live`), the plan
    drawn for it, its status line and its newest reply's facts read from the store, the
    estimate of what its replies used (`usage`), the find bar's place in it, the database
    version it was drawn from, and its replies' failures (`failure`).

    Opening another conversation makes a new one, so nothing of the last conversation
    carries over, except a reply still streaming: it goes on into the store, and the new
    owner holds it on (`replaced_by`) until it ends or its conversation is back on screen;
    and this run's failures and unsent drafts, each kept for its own conversation.
    """

    def __init__(
        self,
        session: ChatSession,
        live: LiveTurn | None = None,
        failures: ReplyFailures | None = None,
        drafts: dict[int | None, str] | None = None,
    ) -> None:
        self.session = session
        self.live = live
        """The reply streaming now: in this conversation, or in one left while it streamed."""
        self.plan: ContextPlan | None = None
        """The plan drawn last for this conversation: what its next request sends."""
        self.shown_version: int | None = None
        """The database's data_version when this conversation was last drawn."""
        self.find_place: FindPlace | None = None
        """The find bar's hit shown in this conversation, if one is."""
        self.usage_tracker = UsageTracker()
        self.usage = UsageView()
        """What this conversation's recent replies most likely used (an estimate)."""
        self.usage_key: UsageKey | None = None
        """What `usage` was worked out for."""
        self.usage_wanted: UsageKey | None = None
        """What an estimate being worked out (in a thread) is for."""
        self._failures = ReplyFailures() if failures is None else failures
        self._drafts: dict[int | None, str] = {} if drafts is None else drafts

    def replaced_by(self, session: ChatSession) -> OnScreen:
        """The owner of `session`'s conversation, now on screen instead of this one."""
        return OnScreen(session, self.live, self._failures, self._drafts)

    def keep_draft(self, text: str) -> None:
        """The composer's text as this conversation is left: it waits for its return."""
        if text.strip():
            self._drafts[self.session.conversation_id] = text
        else:
            self._drafts.pop(self.session.conversation_id, None)

    def take_draft(self) -> str:
        """The draft this conversation was left with this run ("" if none)."""
        return self._drafts.pop(self.session.conversation_id, "")

    def failure(self, reply_id: int) -> ProviderError | None:
        """How `reply_id` of this conversation failed this run, if it did."""
        return self._failures.of(self.session.conversation_id, reply_id)

    def forget_failure(self, reply_id: int) -> None:
        """`reply_id` of this conversation is asked again: its failure no longer holds."""
        self._failures.forget(self.session.conversation_id, reply_id)

    def reply_failed(self, session: ChatSession, reply_id: int, error: ProviderError) -> None:
        """A reply of `session`'s conversation (on screen or not) failed with `error`."""
        self._failures.failed(session.conversation, reply_id, error)

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
            return f"{model_name(self.session.model)} is writing… (Esc stops)"
        return self.reply_facts().status_line()

    def reply_facts(self) -> ReplyFacts:
        """The newest reply's facts; without the server's usage report, its tokenizer's
        count of the reply (a local server that can count but streams no usage)."""
        session = self.session
        if session.conversation_id is None:
            return ReplyFacts()
        newest = session.store.newest_message(session.conversation_id)
        facts = ReplyFacts.of(newest)
        counts = session.server_counts
        if newest is None or counts is None or facts.reply_tokens is None:
            return facts
        if facts.server_reply_tokens is None:
            counted = counts.counted(newest.content)
            facts = dataclasses.replace(facts, server_reply_tokens=counted)
        return facts
