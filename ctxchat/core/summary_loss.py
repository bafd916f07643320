"""What a summary loses: the details of the folded turns it no longer holds, each with the
message it came from, and the pinned entries and rules a summary must keep word for word."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxchat.core.detail_keys import content_words, number_keys, numbers_in_words, stem
from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.core.summary import SummaryStrategy

# The patterns that find details (`core/details.py`) are compiled when a summary is looked at,
# not whenever the store is imported (it reads lost details back: the app's start).
if TYPE_CHECKING:
    from ctxchat.core.details import Detail

# A sentence (a decision, a rule) is still held when this share of its meaning words is.
SENTENCE_KEPT = 0.5
# ...or this share, when the summary holds every detail the sentence names.
ANCHORED_SENTENCE_KEPT = 1 / 3
# A name is held by a word that shares its start, if both are at least this long.
NAME_PREFIX = 5
# Where a lost detail is shown with its sentence, the sentence is cut to this many characters.
CONTEXT_WIDTH = 200


@dataclass(frozen=True, slots=True)
class LostDetail:
    """A detail of a folded turn the summary does not hold.

    `text` is the detail as written, `kind` what it is (a `DetailKind` value), `message_id`
    the turn it came from, `context` the sentence around it: what to add back.
    """

    text: str
    kind: DetailKind
    message_id: int
    context: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind.value,
            "message_id": self.message_id,
            "context": self.context,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LostDetail:
        return cls(
            str(data["text"]),
            DetailKind(data["kind"]),
            int(data["message_id"]),
            str(data.get("context", "")),
        )


@dataclass(frozen=True, slots=True)
class LossReport:
    """What the folded turns held (`checked` details) and what the summary lost of it."""

    lost: tuple[LostDetail, ...] = ()
    checked: int = 0

    def __bool__(self) -> bool:
        return bool(self.lost)

    def to_list(self) -> list[dict[str, Any]]:
        return [item.to_dict() for item in self.lost]


class SummaryIndex:
    """A summary read once, so each detail of the folded turns is looked up quickly."""

    def __init__(self, text: str) -> None:
        from ctxchat.core.details import capitalized_mid_sentence, details_in

        self.text = text
        self.folded = " ".join(text.split())
        self.lower = self.folded.lower()
        self.words = {w.lower().removesuffix("'s") for w in re.findall(r"[\w'’-]+", text)}
        self.words |= {w for word in list(self.words) for w in re.split(r"[-’']", word) if w}
        self.stems = {stem(word) for word in self.words}
        self.keys: set[str] = set()
        for detail in details_in(text, capitalized_mid_sentence([text])):
            self.keys |= detail.keys
        # Small numbers and numbers in words count here: "three retries" keeps "3 retries".
        for match in re.finditer(r"(?<![\w.])\d[\d,]*(?:\.\d+)*([kKmM]|bn)?\b", text):
            self.keys |= number_keys(match[0].rstrip("kKmMbn"), match[1] or "")
        self.keys |= {f"n:{value}" for value in numbers_in_words(text)}
        for share in re.finditer(r"((?:[a-z]+[ -]){0,3}[a-z]+) (?:percent|per cent)\b", self.lower):
            self.keys |= {f"p:{value}" for value in numbers_in_words(share[1])}
        if re.search(r"\bhalf an?\b", self.lower):
            self.keys.add("n:0.5")  # "half a second"
        self.dates = [key[2:].split("-") for key in self.keys if key.startswith("d:")]

    def holds(self, detail: Detail) -> bool:
        """Whether the summary still holds `detail` (any one of its keys; a sentence's
        meaning words together)."""
        meaning = [key[2:] for key in detail.keys if key.startswith("c:")]
        if not meaning:
            return any(self._holds_key(key) for key in detail.keys)
        held = sum(1 for word in meaning if word in self.stems) / len(meaning)
        if held >= SENTENCE_KEPT:
            return True
        # Reworded, but with every number, name and path it names: it is still there.
        return (
            bool(detail.anchors)
            and held >= ANCHORED_SENTENCE_KEPT
            and all(any(self._holds_key(key) for key in keys) for keys in detail.anchors)
        )

    def _holds_name_word(self, word: str) -> bool:
        # "Postgres" holds "PostgreSQL", "Kubernetes" holds "Kubernetes'": a shared start.
        if len(word) < 3:
            return False
        if word in self.words:
            return True
        return len(word) >= NAME_PREFIX and any(
            len(other) >= NAME_PREFIX and (other.startswith(word) or word.startswith(other))
            for other in self.words
        )

    def _holds_key(self, key: str) -> bool:
        kind, value = key[:2], key[2:]
        if kind == "s:":
            return value in self.text or value in self.folded
        if kind == "i:":
            return value in self.lower
        if kind == "a:":
            return any(self._holds_name_word(word) for word in value.split())
        if kind == "u:":
            return key in self.keys or value in self.lower
        if kind == "d:":
            return any(_same_date(value.split("-"), date) for date in self.dates)
        return key in self.keys


def _same_date(wanted: list[str], found: list[str]) -> bool:
    """Dates agree where both say something ("March 15" holds 2024-03-15)."""
    return all(a == b or "*" in (a, b) for a, b in zip(wanted, found, strict=True)) and (
        wanted[1:] == found[1:] or wanted[2] == "*" or found[2] == "*"
    )


RANK = (
    DetailKind.NAME,
    DetailKind.DECISION,
    DetailKind.CONSTRAINT,
    DetailKind.TOPIC,
    DetailKind.DATE,
    DetailKind.URL,
    DetailKind.PATH,
    DetailKind.COMMAND,
    DetailKind.IDENTIFIER,
    DetailKind.NUMBER,
)
"""What matters most first: names, decisions, rules and topics lost come before a reply's
numbers (a looping reply's list numbers would otherwise fill the report)."""
TOPIC_TURNS = 2
"""A word several folded turns use (at least this many) is a topic of theirs."""
TOPIC_MIN_LENGTH = 5
TOPICS_SHOWN = 3
"""Topics reported at most: the most talked about."""
NOT_TOPICS = frozenset(
    stem(word)
    for word in [
        "question",
        "answer",
        "reply",
        "response",
        "message",
        "conversation",
        "thanks",
        "please",
        "hello",
        "sorry",
        "great",
        "sure",
        "right",
        "think",
        "maybe",
        "something",
        "anything",
        "everything",
        "nothing",
        "really",
        "actually",
        "simply",
        "still",
        "again",
        "another",
        "other",
        "first",
        "second",
        "third",
        "thing",
        "things",
        "point",
        "example",
        "later",
        "today",
        "tomorrow",
        "yesterday",
        "would",
        "could",
        "should",
        "might",
        "about",
        "there",
        "their",
        "which",
        "where",
        "these",
        "those",
        "words",
        "sentence",
        "summary",
    ]
)
"""Words of any chat, about talking rather than a subject."""


def ranked(lost: Iterable[LostDetail]) -> tuple[LostDetail, ...]:
    """`lost` with what matters most first (see `RANK`), in order within a kind."""
    return tuple(sorted(lost, key=lambda item: RANK.index(item.kind)))


def lost_topics(messages: Sequence[HistoryMessage], index: SummaryIndex) -> list[LostDetail]:
    """Subjects several of `messages` talk about that the summary never mentions: a topic
    that disappeared, though each of its details may be minor."""
    turns: dict[str, set[int]] = {}
    first: dict[str, tuple[str, HistoryMessage]] = {}
    for message in messages:
        for word in re.findall(rf"\b[A-Za-z]{{{TOPIC_MIN_LENGTH},}}\b", message.content):
            stems = content_words(word)
            if len(stems) != 1:
                continue  # a word that carries no meaning of its own
            (key,) = stems
            if key in NOT_TOPICS:
                continue
            turns.setdefault(key, set()).add(message.id)
            first.setdefault(key, (word, message))
    topics = sorted(
        (key for key, ids in turns.items() if len(ids) >= TOPIC_TURNS and key not in index.stems),
        key=lambda key: -len(turns[key]),
    )
    lost = []
    for key in topics[:TOPICS_SHOWN]:
        word, message = first[key]
        sentence = next((s for s in re.split(r"(?<=[.!?])\s+", message.content) if word in s), word)
        context = (
            sentence if len(sentence) <= CONTEXT_WIDTH else sentence[: CONTEXT_WIDTH - 1] + "…"
        )
        lost.append(LostDetail(word.lower(), DetailKind.TOPIC, message.id, context))
    return lost


def loss_report(messages: Sequence[HistoryMessage], summary: str) -> LossReport:
    """The details of `messages` (the folded turns) that `summary` does not hold, and the
    topics they talk about that it never mentions, what matters most first (`ranked`).

    Each detail is reported once, from the first message that held it.
    """
    from ctxchat.core.details import capitalized_mid_sentence, details_in

    sendable = [m for m in messages if m.sendable]
    names = capitalized_mid_sentence([m.content for m in sendable])
    index = SummaryIndex(summary)
    seen: set[tuple[DetailKind, frozenset[str]]] = set()
    lost: list[LostDetail] = []
    for message in sendable:
        for detail in details_in(message.content, names):
            identity = (detail.kind, detail.keys)
            if identity in seen:
                continue
            seen.add(identity)
            if not index.holds(detail):
                lost.append(LostDetail(detail.text, detail.kind, message.id, _context(detail)))
    topics = lost_topics(sendable, index)
    return LossReport(ranked([*lost, *topics]), len(seen) + len(topics))


def still_lost(
    messages: Sequence[HistoryMessage], lost: Iterable[LostDetail], summary: str
) -> tuple[LostDetail, ...]:
    """Of what a summary lost, what `summary` (its text, edited) still does not hold."""
    wanted = {(item.kind, item.text, item.message_id) for item in lost}
    if not wanted:
        return ()
    report = loss_report(messages, summary)
    return tuple(i for i in report.lost if (i.kind, i.text, i.message_id) in wanted)


def add_back(summary: str, item: LostDetail, strategy: SummaryStrategy) -> str:
    """`summary` with a lost detail added back: the sentence it came from, on a line of its
    own (`kind: sentence` for the key-value strategy)."""
    line = item.context or item.text
    if strategy is SummaryStrategy.KEYVALUE:
        label = "decision" if item.kind is DetailKind.DECISION else "constraint"
        if item.kind not in (DetailKind.DECISION, DetailKind.CONSTRAINT):
            label = "fact"
        line = f"{label}: {line}"
    return f"{summary.rstrip()}\n{line}" if summary.strip() else line


def _context(detail: Detail) -> str:
    sentence = detail.sentence or detail.text
    return sentence if len(sentence) <= CONTEXT_WIDTH else sentence[: CONTEXT_WIDTH - 1] + "…"


# --- what is never folded away -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeptWord:
    """Text a summary must hold, word for word if the model dropped it.

    `why` is "pinned" (a pinned memory entry made from a folded turn), "constraint" (a
    constraint entry made from one) or "rule" (a rule the user stated in a folded turn).
    """

    text: str
    message_id: int
    why: str


def must_keep(
    messages: Sequence[HistoryMessage], memory: Iterable[MemoryEntry] = ()
) -> list[KeptWord]:
    """What folding `messages` must never lose: the pinned and constraint entries whose source
    is one of them, and the rules the user stated in them (see `DetailKind.CONSTRAINT`)."""
    from ctxchat.core.details import details_in

    ids = {m.id for m in messages}
    kept: dict[str, KeptWord] = {}
    for entry in memory:
        if entry.superseded or not (entry.pinned or entry.kind is MemoryKind.CONSTRAINT):
            continue
        source = _source_in(entry.source, ids)
        if source is not None:
            why = "pinned" if entry.pinned else "constraint"
            kept.setdefault(_folded(entry.text), KeptWord(entry.text.strip(), source, why))
    for message in messages:
        if message.role != "user" or not message.sendable:
            continue
        for detail in details_in(message.content):
            if detail.kind is DetailKind.CONSTRAINT:
                kept.setdefault(_folded(detail.text), KeptWord(detail.text, message.id, "rule"))
    return list(kept.values())


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _source_in(source: str, ids: set[int]) -> int | None:
    """The folded message an entry's source names (`message:N`, `messages:A-B`), if any."""
    kind, _, rest = source.partition(":")
    first, _, last = rest.partition("-")
    if kind == "message" and rest.isdecimal():
        return int(rest) if int(rest) in ids else None
    if kind == "messages" and first.isdecimal() and last.isdecimal():
        inside = [i for i in ids if int(first) <= i <= int(last)]
        return min(inside) if inside else None
    return None


def holds_text(summary: str | SummaryIndex, text: str) -> bool:
    """Whether `summary` holds `text`: most of its meaning words and each of its details."""
    from ctxchat.core.details import details_in

    index = summary if isinstance(summary, SummaryIndex) else SummaryIndex(summary)
    meaning = content_words(text)
    if meaning and sum(1 for word in meaning if word in index.stems) < SENTENCE_KEPT * len(meaning):
        return False
    return all(
        index.holds(detail)
        for detail in details_in(text)
        if detail.kind not in (DetailKind.DECISION, DetailKind.CONSTRAINT)
    )
