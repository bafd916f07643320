"""What the store returns: frozen records of conversations, messages and summary versions."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ctxchat.core.history import HistoryMessage, MessageStatus, SummaryState
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_loss import LostDetail

ROLES = ("system", "user", "assistant", "tool")


# Stay well under SQLite's limit on `?` parameters in one statement (999 in old builds).
_CHUNK = 500
_Key = TypeVar("_Key", int, bytes)


def chunks_of(ids: Collection[_Key]) -> Iterator[list[_Key]]:
    """`ids` in order, in lists short enough for one statement's `IN (?, …)`."""
    ordered = sorted(ids)
    for start in range(0, len(ordered), _CHUNK):
        yield ordered[start : start + _CHUNK]


def conversation_name(conversation_id: int, title: str) -> str:
    """What a conversation is called everywhere (header, switcher, CLI, export): its title,
    else `conversation N`."""
    return title or f"conversation {conversation_id}"


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation; `title` is empty until one is given. Timestamps: seconds since the epoch.

    `model` and `profile` are what it started with; `chosen_profile` and `chosen_model` what
    the user chose for it since (None: nothing chosen, the configured one applies).
    """

    id: int
    title: str
    model: str | None
    profile: str | None
    active_summary_id: int | None
    created_at: float
    updated_at: float
    chosen_profile: str | None = None
    chosen_model: str | None = None
    origin: str | None = None
    """The tool an imported conversation came from (`chatgpt`, `claude`, `llm`,
    `open-webui`); None for one made in ctxchat."""
    origin_id: str | None = None
    """The conversation's id in that tool."""
    preset: str | None = None
    """The preset chosen for it (`[presets.NAME]`; None: none)."""
    system_prompt: str | None = None
    """Its own system prompt (None: the preset's, else the config's; "" sends none)."""
    project_id: int | None = None
    """The project it is in (its conversations share that project's memory); None: none."""

    @property
    def name(self) -> str:
        return conversation_name(self.id, self.title)


@dataclass(frozen=True, slots=True)
class ConversationInfo:
    """A row of the conversation list: what it is called, how long it is, when it last changed."""

    id: int
    title: str
    created_at: float
    updated_at: float
    message_count: int
    tokens: int
    origin: str | None = None
    """The tool it was imported from (see `Conversation.origin`)."""
    origin_id: str | None = None
    project: str | None = None
    """The name of the project it is in (None: none)."""

    @property
    def name(self) -> str:
        return conversation_name(self.id, self.title)


@dataclass(frozen=True, slots=True)
class MessageHit:
    """A conversation whose messages hold every word searched for: how many do, and the
    newest of them (its id and text)."""

    conversation_id: int
    message_id: int
    content: str
    count: int


@dataclass(frozen=True, slots=True)
class ReplyLength:
    """How many tokens a reply is, and whose count that is: the server's own
    (`usage.completion_tokens`: what the model generated, its reasoning included) where it
    reported one, else ctxchat's (the stored count, the one plans use)."""

    tokens: int
    counted_by: Literal["server", "ctxchat"]

    @classmethod
    def of(cls, tokens: int, completion_tokens: int | None) -> ReplyLength:
        if completion_tokens is not None:
            return cls(completion_tokens, "server")
        return cls(tokens, "ctxchat")

    def describe(self) -> str:
        """`512 tokens (server)`: the count and whose it is, as the app and the CLI say it."""
        return f"{self.tokens:,} tokens ({self.counted_by})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (`ctxchat send --json`, `ctxchat ask-again --json`)."""
        return {"tokens": self.tokens, "counted_by": self.counted_by}


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message with everything known about it.

    `tokens` is its cost in a request, counted with `encoding` when it was stored (`exact`
    says whether that counter was the model's own tokenizer). `reasoning` is the model's
    separate reasoning text, shown but never sent back. For replies, `prompt_tokens`,
    `completion_tokens` and `cached_tokens` are the server's usage report, and
    `estimated_prompt_tokens` ctxchat's own count of the request, to show the drift.
    `error` is why a reply failed or stopped, as ctxchat tells it; `error_detail` is what
    the server itself said, when it said anything (redacted). `excluded`: the user left it
    out of the requests. `billing` says whether a reply's server charges for it ("free",
    "priced"; None: not recorded).
    """

    id: int
    conversation_id: int
    role: str
    content: str
    tokens: int
    exact: bool
    encoding: str
    status: MessageStatus
    model: str | None = None
    reasoning: str = ""
    finish_reason: str | None = None
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    estimated_prompt_tokens: int | None = None
    parent_id: int | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    error_detail: str | None = None
    excluded: bool = False
    billing: str | None = None

    @property
    def length(self) -> ReplyLength:
        """A reply's length in tokens: the server's count where it reported one."""
        return ReplyLength.of(self.tokens, self.completion_tokens)

    @property
    def drift(self) -> int | None:
        """Server-reported prompt tokens minus ctxchat's estimate, when both are known."""
        if self.prompt_tokens is None or self.estimated_prompt_tokens is None:
            return None
        return self.prompt_tokens - self.estimated_prompt_tokens

    def to_history(self) -> HistoryMessage:
        return HistoryMessage(
            self.id, self.role, self.content, self.tokens, self.status, self.excluded
        )


@dataclass(frozen=True, slots=True)
class SummaryVersion:
    """One version of a conversation's summary and the messages it covers (inclusive)."""

    id: int
    conversation_id: int
    version: int
    text: str
    first_message_id: int
    last_message_id: int
    strategy: SummaryStrategy
    model: str | None
    tokens: int
    edited: bool
    note: str
    created_at: float
    cut: bool = False
    """The model's reply was cut at the summary's limit: kept up to its last whole sentence."""
    lost: tuple[LostDetail, ...] = ()
    """What the folded turns held that this text does not (see `core/summary_loss.py`)."""
    reviewed: bool = False
    """The user looked at what it lost and kept it."""
    faults: tuple[str, ...] = ()
    """What its check found besides lost details, in words: it repeats its instructions or
    the transcript, it states numbers or names the folded turns do not hold."""
    waiting: bool = False
    """Made automatically and held for the user's review: not in force until accepted."""

    @property
    def flagged(self) -> bool:
        """It lost something (or its check found a fault), and the user has not reviewed it."""
        return bool(self.lost or self.faults) and not self.reviewed

    def state(self) -> SummaryState:
        """The summary as the context engine uses it."""
        return SummaryState(
            self.version,
            self.text,
            self.first_message_id,
            self.last_message_id,
            self.edited,
            tuple((detail.message_id, detail.text) for detail in self.lost),
        )


_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """`text` as SQLite can store it: a lone surrogate (a stream cut inside an emoji's escape)
    cannot be encoded as UTF-8, so it becomes U+FFFD instead of failing the save."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


@dataclass(frozen=True, slots=True)
class Project:
    """A named set of conversations that share memory entries; with how many of each."""

    id: int
    name: str
    created_at: float
    conversations: int = 0
    entries: int = 0
