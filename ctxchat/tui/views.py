"""Plain, frozen view data the app hands to the conversation widgets and screens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.core.summary import SummaryStrategy

Scope = Literal["global", "project", "conversation"]


@dataclass(frozen=True, slots=True)
class MessageView:
    """One stored turn as the conversation pane shows it.

    `error` is the provider's one-sentence reason for an interrupted or failed reply;
    `tokens` is the stored count (0 while a reply is still arriving); `reasoning_tokens`
    counts the separate reasoning, which is shown but never sent back; `cut` says the
    output limit ended the reply; `excluded` says the user left it out of the requests;
    `cost` is what the reply cost as the price table says it ("" when not asked: a price
    nobody gave shows nothing beside the count); `limit` names the setting that set the
    output limit, the one a cut reply's marker tells to raise ("" when not known).
    """

    id: int
    role: str
    content: str
    status: MessageStatus = MessageStatus.COMPLETE
    error: str = ""
    model: str = ""
    tokens: int = 0
    reasoning: str = ""
    reasoning_tokens: int = 0
    cut: bool = False
    excluded: bool = False
    cost: str = ""
    limit: str = ""


@dataclass(frozen=True, slots=True)
class SummaryVersionView:
    """One stored version of a conversation's summary; `active` marks the one in force."""

    id: int
    version: int
    text: str
    first_message_id: int
    last_message_id: int
    strategy: SummaryStrategy
    model: str
    tokens: int
    edited: bool
    created_at: float
    active: bool
    flagged: int = 0
    """Details it lost (and faults its check found) that the user has not reviewed yet (0:
    nothing to review)."""
    waiting: bool = False
    """Made automatically and held for review: not in force until the user keeps it."""


@dataclass(frozen=True, slots=True)
class ConversationRowView:
    """A conversation as the switcher lists it (`updated_at` in seconds since the epoch).

    Not called `ConversationView`: that is the conversation pane widget.
    """

    id: int
    title: str
    updated_at: float
    message_count: int
    tokens: int
    origin: str = ""
    """The tool it was imported from, as shown (`ChatGPT`); "" when made here."""
    project: str = ""
    """The project it is in; "" when none."""


@dataclass(frozen=True, slots=True)
class MessageHitView:
    """A conversation's messages hold the words searched for: how many do, and the newest
    of them (its id, and its text as stored: cleaned when drawn)."""

    message_id: int
    content: str
    count: int


@dataclass(frozen=True, slots=True)
class ProposalView:
    """An entry the model proposed during extraction, and the existing entry it restates."""

    index: int
    kind: MemoryKind
    text: str
    importance: int
    source_message_id: int | None = None
    matches_entry_id: int | None = None
    matches_text: str = ""


@dataclass(frozen=True, slots=True)
class ServerView:
    """A model server found on loopback at first run: its kind, OpenAI base URL and models."""

    kind: str
    base_url: str
    models: tuple[str, ...]
    needs_key: bool = False


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """A memory entry as the editor fills it in: its result, and how the editor is prefilled.

    `scope` "conversation" means the conversation the app has open; "project", the project
    the entry belongs to.
    """

    text: str = ""
    key: str | None = None
    kind: MemoryKind = MemoryKind.FACT
    scope: Scope = "global"
    importance: int = 5
    pinned: bool = False

    @classmethod
    def from_entry(cls, entry: MemoryEntry) -> MemoryDraft:
        """The draft for editing an existing entry."""
        return cls(
            text=entry.text,
            key=entry.key,
            kind=entry.kind,
            scope=(
                "conversation"
                if entry.conversation_id is not None
                else "project"
                if entry.project_id is not None
                else "global"
            ),
            importance=entry.importance,
            pinned=entry.pinned,
        )
