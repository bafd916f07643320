"""Memory entries, the two modes, and how entries become the memory layer's text."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
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

    `conversation_id` None means global scope (every conversation). `source` says where it
    came from (see `provenance`). Timestamps are seconds since the epoch. An entry replaced by
    a newer one on the same key is kept, `superseded_by` that entry since `superseded_at`.
    `turn` is how many user turns (over every conversation) the store held when the entry
    was made or last confirmed: a hypothesis is flagged once it waited too many turns.
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
    superseded_by: int | None = None
    superseded_at: float | None = None
    turn: int = 0
    kept_from: str | None = None
    """The title of the conversation the entry belonged to until it was deleted (the entry
    was kept, global and left out until the user includes it); None otherwise."""
    off_in: frozenset[int] = frozenset()
    """The conversations the user switched this entry off in (it stays on in the others)."""
    project_id: int | None = None
    """The project whose conversations share the entry (None: global or one conversation's)."""
    project: str | None = None
    """That project's name."""

    def __post_init__(self) -> None:
        if not 1 <= self.importance <= 10:
            raise ValueError(f"importance is {self.importance}: it must be from 1 to 10")

    @property
    def ref(self) -> str:
        return f"memory:{self.id}"

    @property
    def scope(self) -> str:
        if self.conversation_id is not None:
            return "conversation"
        return "global" if self.project_id is None else "project"

    @property
    def scope_words(self) -> str:
        """Where it applies, as the panel says it: global, project NAME, this conversation."""
        if self.conversation_id is not None:
            return "this conversation"
        return "global" if self.project_id is None else f"project {self.project}"

    @property
    def superseded(self) -> bool:
        return self.superseded_by is not None

    @property
    def as_of(self) -> float:
        """When the entry last changed: the date shown with it."""
        return self.updated_at or self.created_at


def day(timestamp: float, zone: tzinfo = UTC) -> date:
    """The calendar day a timestamp falls on in `zone`."""
    return datetime.fromtimestamp(timestamp, zone).date()


@dataclass(frozen=True, slots=True)
class MemoryDates:
    """The optional date line: today's date, and the zone entries' timestamps are read in.

    An input of assembly (never read from the clock inside the core), so the same inputs
    always give the same request.
    """

    today: date
    zone: tzinfo = UTC

    @property
    def line(self) -> str:
        return f"Today's date: {self.today.isoformat()}.\n"


def render_entry(entry: MemoryEntry, dates: MemoryDates | None = None) -> str:
    """The line an entry becomes in the memory message, newline included."""
    text = " ".join(entry.text.split())
    body = f"{entry.key}: {text}" if entry.key else text
    label = _LABELS[entry.kind]
    if dates is not None:
        label += f", as of {day(entry.as_of, dates.zone).isoformat()}"
    return f"- [{label}] {body}\n"


def memory_header(dates: MemoryDates | None = None) -> str:
    """The memory message's first lines: the header, and today's date when dates are on."""
    return MEMORY_HEADER + "\n" + (dates.line if dates is not None else "")


def render_memory(entries: list[MemoryEntry], dates: MemoryDates | None = None) -> str:
    """The whole memory message for the chosen entries, in the order given."""
    return memory_header(dates) + "".join(render_entry(entry, dates) for entry in entries)


def superseded_detail(entry: MemoryEntry, zone: tzinfo = UTC) -> str:
    """Why a superseded entry is left out: "superseded by memory:N on DATE"."""
    when = day(entry.superseded_at, zone).isoformat() if entry.superseded_at else "an unknown day"
    return f"superseded by memory:{entry.superseded_by} on {when}"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where an entry came from, in words, and the message to jump to (if any)."""

    text: str
    message_id: int | None = None


def provenance(source: str) -> Provenance:
    """Read a stored source: `manual`, `message:N` (pinned), `messages:A-B` (extracted from
    those messages), `extraction` (extracted, messages unknown) or `import`."""
    kind, _, rest = source.partition(":")
    if kind == "message" and rest.isdecimal():
        return Provenance(f"pinned from message #{rest}", int(rest))
    if kind == "messages":
        first, _, last = rest.partition("-")
        if first.isdecimal() and last.isdecimal():
            span = f"message #{first}" if first == last else f"messages #{first}–#{last}"
            return Provenance(f"extracted from {span}", int(first))
    if source == "extraction":
        return Provenance("extracted by the model")
    if source == "import":
        return Provenance("imported")
    if source == "manual":
        return Provenance("typed by hand")
    return Provenance(source)


def excluded_detail(entry: MemoryEntry) -> str:
    """Why an entry the user has not included is left out of the request."""
    if entry.kept_from is not None:
        return f"kept from the deleted conversation “{entry.kept_from}”: include it to use it"
    return "excluded by you"


def restored_note(entry: MemoryEntry, mode: Mode) -> str:
    """What restoring `entry` did, and whether it now goes into requests in `mode`."""
    told = f"Restored memory #{entry.id}: it is current again"
    if not entry.enabled:
        return f"{told}, but left out of requests ({excluded_detail(entry)})."
    if not mode.includes(entry.kind):
        return f"{told}, but left out of requests in {mode.value} mode."
    return f"{told} and goes into requests while the memory budget has room."


def extracted_source(first: int, last: int) -> str:
    """The source of an entry extracted from messages `first` to `last`."""
    return f"messages:{first}-{last}"


def unconfirmed_turns(entry: MemoryEntry, turns_now: int, limit: int) -> int | None:
    """How many turns a hypothesis has waited, once that reaches `limit`; else None.

    A flag for the user to decide (confirm, keep or drop): nothing is ever done to it here.
    """
    if entry.kind is not MemoryKind.HYPOTHESIS or entry.superseded or limit <= 0:
        return None
    waited = turns_now - entry.turn
    return waited if waited >= limit else None


def in_scope(
    entry: MemoryEntry, conversation_id: int | None, project_id: int | None = None
) -> bool:
    """Whether `entry` belongs in the requests of `conversation_id`, in project `project_id`."""
    if entry.conversation_id is not None:
        return entry.conversation_id == conversation_id
    return entry.project_id is None or entry.project_id == project_id


SWITCHED_OFF_DETAIL = "switched off for this conversation"


def switched_off(entry: MemoryEntry, conversation_id: int | None) -> bool:
    """True when the user switched `entry` off in `conversation_id` alone.

    Only an entry shared with other conversations can be: one of the conversation's own is
    excluded instead (there is nowhere else for it to stay on).
    """
    return (
        conversation_id is not None
        and entry.conversation_id != conversation_id
        and conversation_id in entry.off_in
    )


def priority_order(entries: list[MemoryEntry]) -> list[MemoryEntry]:
    """Pinned first, then higher importance, then the most recently updated, then id."""
    return sorted(
        entries,
        key=lambda e: (not e.pinned, -e.importance, -(e.updated_at or e.created_at), e.id),
    )
