"""Memory entries, the two modes, and how entries become the memory layer's text."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class MemoryKind(StrEnum):
    """What kind of knowledge an entry is; decides its label and whether a mode includes it."""

    FACT = "fact"
    CONSTRAINT = "constraint"
    PREFERENCE = "preference"
    HYPOTHESIS = "hypothesis"


PLURALS = {
    MemoryKind.FACT: "facts",
    MemoryKind.CONSTRAINT: "constraints",
    MemoryKind.PREFERENCE: "preferences",
    MemoryKind.HYPOTHESIS: "hypotheses",
}


class Mode(StrEnum):
    """Personalization includes every kind; objective only facts and constraints."""

    PERSONALIZATION = "personalization"
    OBJECTIVE = "objective"

    def includes(self, kind: MemoryKind) -> bool:
        if self is Mode.PERSONALIZATION:
            return True
        # Preferences and hypotheses anchor the model's answer (anchoring bias), so objective
        # mode leaves them out.
        return kind in (MemoryKind.FACT, MemoryKind.CONSTRAINT)

    def toggled(self) -> Mode:
        return Mode.OBJECTIVE if self is Mode.PERSONALIZATION else Mode.PERSONALIZATION


MEMORY_HEADER = "Memory curated by the user (each entry is labelled with its kind):"

_LABELS = {
    MemoryKind.FACT: "fact",
    MemoryKind.CONSTRAINT: "constraint",
    MemoryKind.PREFERENCE: "preference: the user's taste or belief, not a verified fact",
    MemoryKind.HYPOTHESIS: "hypothesis: unverified, treat as a guess",
}


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One curated piece of memory.

    `conversation_id` None means global scope (every conversation). `source` is `manual`,
    `message:<id>` or `extraction`. Timestamps are seconds since the epoch.
    """

    id: int
    kind: MemoryKind
    text: str
    key: str | None = None
    pinned: bool = False
    importance: int = 5
    conversation_id: int | None = None
    source: str = "manual"
    enabled: bool = True
    created_at: float = 0.0
    updated_at: float = 0.0
    tags: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not 1 <= self.importance <= 10:
            raise ValueError(f"importance is {self.importance}: it must be from 1 to 10")

    @property
    def ref(self) -> str:
        return f"memory:{self.id}"

    @property
    def scope(self) -> str:
        return "global" if self.conversation_id is None else "conversation"


def render_entry(entry: MemoryEntry) -> str:
    """The line an entry becomes in the memory message, newline included."""
    text = " ".join(entry.text.split())
    body = f"{entry.key}: {text}" if entry.key else text
    return f"- [{_LABELS[entry.kind]}] {body}\n"


def render_memory(entries: list[MemoryEntry]) -> str:
    """The whole memory message for the chosen entries, in the order given."""
    return MEMORY_HEADER + "\n" + "".join(render_entry(entry) for entry in entries)


def in_scope(entry: MemoryEntry, conversation_id: int | None) -> bool:
    return entry.conversation_id is None or entry.conversation_id == conversation_id


def priority_order(entries: list[MemoryEntry]) -> list[MemoryEntry]:
    """Pinned first, then higher importance, then the most recently updated, then id."""
    return sorted(
        entries,
        key=lambda e: (not e.pinned, -e.importance, -(e.updated_at or e.created_at), e.id),
    )
