"""The shapes of a recall-corpus template bank (see recall_corpus.py)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FactSpec:
    """Something said in a conversation and the questions it answers.

    `lines` are said by the subject {S} (to {O}), line i `gap` sessions after line 0; {D} is
    the day the line is said. Questions are (type, text, indices of the lines that answer it).
    `mentions` are later lines on the same topic that answer nothing (said by the subject).
    """

    key: str
    lines: tuple[str, ...]
    questions: tuple[tuple[str, str, tuple[int, ...]], ...]
    slots: dict[str, tuple[str, ...]] = field(default_factory=dict)
    replies: tuple[str, ...] = ("Oh nice!",)
    mentions: tuple[str, ...] = ()
    mention_rate: float = 0.08
    gap: int = 3


@dataclass(frozen=True)
class Persona:
    """One conversation: who talks, what kind, how long."""

    title: str
    kind: str  # "friends" or "assistant"
    user: str
    other: str
    sessions: int
    facts: int


@dataclass(frozen=True)
class Bank:
    """Everything one corpus is generated from."""

    name: str
    personas: tuple[Persona, ...]
    friend_facts: tuple[FactSpec, ...]
    assistant_facts: tuple[FactSpec, ...]
    openers: tuple[str, ...]
    closers: tuple[str, ...]
    chat: tuple[str, ...]
    user_chat: tuple[str, ...]
    replies: tuple[str, ...]
    always: tuple[str, ...] = ()
    """Keys of facts every conversation of their kind holds (the others are drawn at random)."""
