"""The conversation on screen: its session, the version it was drawn from, its status line."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ctxchat.chat.context_planning import local_zone
from ctxchat.chat.costs import cost_summary
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import given_server
from ctxchat.core.history import MessageStatus
from ctxchat.store import StoredMessage
from ctxchat.tui.text import model_name, shown_server


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
        """The line under the conversation: the reply's and the prompt's size in tokens as
        ctxchat counted them, with the server's own count beside each (`reply 12 tokens
        (server counted 8) · prompt 19 tokens (server counted 17)`). A reply that failed,
        stopped or was cut says so on its own marker line, once: the status line then tells
        nothing of it."""
        if self.status is not MessageStatus.COMPLETE:
            return ""
        parts = [
            _counts("reply", self.server_reply_tokens, self.reply_tokens),
            _counts("prompt", self.server_prompt_tokens, self.sent_tokens),
        ]
        return " · ".join(part for part in parts if part)


def _counts(what: str, server: int | None, ours: int | None) -> str:
    """`prompt 19 tokens (server counted 17)`, of the counts there are."""
    if ours is None:
        return "" if server is None else f"{what} {server:,} tokens (as the server counted)"
    counted = "" if server is None else f" (server counted {server:,})"
    return f"{what} {ours:,} tokens{counted}"


class OnScreen:
    """The conversation on screen: its session, the database version it was drawn from,
    and its status line (its newest reply's facts, read from the store).

    Opening another conversation makes a new one (`ConversationScreen.shown`); what else the
    screen shows of a conversation is owned by the part that shows it (see ARCHITECTURE.md).
    """

    def __init__(self, session: ChatSession) -> None:
        self.session = session
        self.shown_version: int | None = None
        """The database's data_version when this conversation was last drawn."""

    def shows(self, session: ChatSession) -> bool:
        """Whether this is `session`'s conversation (through any session object)."""
        return self.session.conversation_id == session.conversation_id

    def titles(self) -> tuple[str, str]:
        """The header's title (the conversation's) and subtitle (profile, model, the server
        when the command line gave it, the preset if any, mode)."""
        session = self.session
        title = "new conversation"
        if session.conversation_id is not None:
            title = session.store.conversations.get_conversation(session.conversation_id).name
        model = model_name(session.model)
        # A server given on the command line is named: the one the messages go to.
        server = given_server(session)
        at = f" at {shown_server(server)}" if server else ""
        preset = session.preset_name
        chosen = f" · preset {preset}" if preset is not None else ""
        return title, f"{session.profile.name} · {model}{at}{chosen} · mode: {session.mode.value}"

    def status_line(self, writing: bool) -> str:
        """The line under the conversation: who is writing while its reply streams
        (`writing`), else the newest reply's facts (or what can be done about it)."""
        if writing:
            return f"{model_name(self.session.model)} is writing… (Esc stops)"
        facts = self.reply_facts().status_line()
        if not facts:
            return facts
        # What the conversation cost so far goes with its newest reply's counts, once a
        # reply was asked (a reply imported or copied made no request: nothing to tell).
        session = self.session
        costs = cost_summary(session.store, session.settings, session.conversation_id, local_zone())
        return facts if costs.reply is None else f"{facts} · {costs.text()}"

    def reply_facts(self) -> ReplyFacts:
        """The newest reply's facts; without the server's usage report, its tokenizer's
        count of the reply (a local server that can count but streams no usage)."""
        session = self.session
        if session.conversation_id is None:
            return ReplyFacts()
        newest = session.store.messages.newest_message(session.conversation_id)
        facts = ReplyFacts.of(newest)
        counts = session.server_counts
        if newest is None or counts is None or facts.reply_tokens is None:
            return facts
        if facts.server_reply_tokens is None:
            counted = counts.counted(newest.content)
            facts = dataclasses.replace(facts, server_reply_tokens=counted)
        return facts
