"""What an importer reads from another tool's history: conversations of messages, in ctxchat's
terms (roles, text, times), before anything is stored."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxchat.core.history import MessageStatus


@dataclass(frozen=True, slots=True)
class ImportedAnswer:
    """Another answer to the same message (regenerated, or from another model): kept as a
    variant of the reply the conversation went on from."""

    content: str
    reasoning: str = ""
    model: str | None = None
    created_at: float | None = None
    change: str = ""
    """How it came to be, in words (`another answer in ChatGPT`)."""


@dataclass(frozen=True, slots=True)
class ImportedMessage:
    """One message as ctxchat stores it: `role` is user, assistant or system (a tool's output
    is part of the reply it served), `content` is text (what was not text is a placeholder)."""

    role: str
    content: str
    created_at: float | None = None
    model: str | None = None
    reasoning: str = ""
    status: MessageStatus = MessageStatus.COMPLETE
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    answers: tuple[ImportedAnswer, ...] = ()
    """Other answers to the message before this reply (only on replies)."""


@dataclass(frozen=True, slots=True)
class ImportedConversation:
    """A conversation read from another tool, with its id there (`origin_id`), which stays the
    same each time the same history is read."""

    origin_id: str
    title: str
    messages: tuple[ImportedMessage, ...]
    created_at: float | None = None
    updated_at: float | None = None
    model: str | None = None
    notes: tuple[str, ...] = field(default=())
    """What was left out or changed on the way, for `--dry-run` (`2 hidden system nodes`)."""
