"""Attached files as a context layer: whole when they fit their share, else in parts chosen
for the new message, each saying why it is there.

A file is read once, when the user attaches it (or refreshes it); the request sends that
copy. Its text is split then into parts of about `part_tokens` tokens at line ends and
counted once, so planning never tokenizes a file again. Whether the file changed on disk
since is found around the core (by content hash) and only told here.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ctxchat.core.budget import Budget, Layer
from ctxchat.core.counts import counted
from ctxchat.core.plan import LayerPlan, LeftOut, PlanItem, Reason
from ctxchat.core.recall import query_terms, uncommon_terms
from ctxchat.core.termstats import PREFIX_LENGTH, ConversationTerms, occurrences, spaced, words_of
from ctxchat.core.tokens import TokenCounter, count_message

FILES_HEADER = (
    "Files attached by the user, each between its BEGIN and END lines (a file too long for "
    "the request is sent in parts: those most relevant to the new message):"
)


class DiskState(StrEnum):
    """How the file on disk compares with the copy attached."""

    SAME = "same"
    CHANGED = "changed"
    GONE = "gone"  # removed, or no longer readable
    UNCHECKED = "unchecked"


@dataclass(frozen=True, slots=True)
class FilePart:
    """Lines `first_line` to `last_line` (from 1) of a file: `start` to `end` in its text,
    and what they cost (`tokens`, the text alone)."""

    number: int
    first_line: int
    last_line: int
    start: int
    end: int
    tokens: int


class PartIndex:
    """Word statistics of a file's parts, and which parts hold each word, to rank them for a
    message (built once a file): only the parts holding a word of the message are scored."""

    def __init__(self, texts: Sequence[str]) -> None:
        readable = [index_words(text) for text in texts]
        self.terms = ConversationTerms(readable)
        self.spaced = [spaced(text) for text in readable]
        postings: dict[str, list[int]] = {}
        for number, text in enumerate(readable):
            for word in set(words_of(text)):
                postings.setdefault(word, []).append(number)
        self._postings = postings
        self._vocabulary = sorted(postings)

    def holding(self, terms: Sequence[str]) -> list[int]:
        """The positions of the parts holding any of `terms` (a long term as a prefix)."""
        found: set[int] = set()
        for term in terms:
            if len(term) < PREFIX_LENGTH:
                found.update(self._postings.get(term, ()))
                continue
            start = bisect.bisect_left(self._vocabulary, term)
            end = bisect.bisect_left(self._vocabulary, term + "\uffff", start)
            for word in self._vocabulary[start:end]:
                found.update(self._postings[word])
        return sorted(found)


@dataclass(frozen=True, slots=True)
class AttachedFile:
    """A file attached to a conversation: the copy read (`text`, ending with a new line), what
    it costs whole (`tokens`), its parts, and how the disk compares (`disk`)."""

    id: int
    name: str
    text: str
    tokens: int
    parts: tuple[FilePart, ...]
    disk: DiskState = DiskState.UNCHECKED
    index: PartIndex | None = field(default=None, compare=False)

    @property
    def ref(self) -> str:
        return f"file:{self.id}"

    @property
    def lines(self) -> int:
        """How many lines the text holds: the last part's last line (the text is not scanned:
        a plan asks for every part's label)."""
        return self.parts[-1].last_line if self.parts else 0

    def part_text(self, part: FilePart) -> str:
        return self.text[part.start : part.end]

    def part_index(self) -> PartIndex:
        return self.index or PartIndex([self.part_text(part) for part in self.parts])


def sendable_text(text: str) -> str:
    """A file's text as it is sent: ending with a new line, so its END line starts a line."""
    return text if not text or text.endswith("\n") else text + "\n"


def split_into_parts(text: str, counter: TokenCounter, part_tokens: int) -> tuple[FilePart, ...]:
    """`text` (from `sendable_text`) in parts of at most about `part_tokens` tokens each, cut at
    line ends; a line longer than that alone is cut inside (at a space when it has one)."""
    pieces: list[tuple[int, int, int]] = []  # (start, end, line number of the start)
    position, line = 0, 1
    for raw in text.splitlines(keepends=True):
        for piece in _cut_line(raw, counter, part_tokens):
            pieces.append((position, position + len(piece), line))
            position += len(piece)
        line += 1
    parts: list[FilePart] = []
    start = end = first = last = 0
    used = 0
    for piece_start, piece_end, piece_line in pieces:
        cost = counter.count_text(text[piece_start:piece_end])
        if end > start and used + cost > part_tokens:
            parts.append(_part(text, counter, len(parts) + 1, first, last, start, end))
            start, used = piece_start, 0
        if end == start:
            first = piece_line
        end, last = piece_end, piece_line
        used += cost
    if end > start:
        parts.append(_part(text, counter, len(parts) + 1, first, last, start, end))
    return tuple(parts)


def _part(
    text: str, counter: TokenCounter, number: int, first: int, last: int, start: int, end: int
) -> FilePart:
    return FilePart(number, first, last, start, end, counter.count_text(text[start:end]))


def _cut_line(line: str, counter: TokenCounter, limit: int) -> list[str]:
    """A line in pieces of at most `limit` tokens (one piece when it fits); only pieces are
    counted, so a megabyte on one line is cut in linear time."""
    if counter.count_text(line) <= limit:
        return [line]
    pieces = []
    rest = line
    while rest:
        # About four characters a token at most; shrink until the piece fits.
        size = min(len(rest), limit * 4)
        while size > 1 and counter.count_text(rest[:size]) > limit:
            size = max(1, size * 3 // 4)
        if size < len(rest):
            space = rest.rfind(" ", size // 2, size)
            size = space + 1 if space > 0 else size
        pieces.append(rest[:size])
        rest = rest[size:]
    return pieces


def begin_line(name: str, lines: int, part: FilePart | None = None, parts: int = 0) -> str:
    if part is None:
        return f"--- BEGIN {name} (whole file, {counted(lines, 'line')}) ---\n"
    return (
        f"--- BEGIN {name}, lines {part.first_line}-{part.last_line} "
        f"(part {part.number} of {parts}) ---\n"
    )


def end_line(name: str) -> str:
    return f"--- END {name} ---\n"


@dataclass(frozen=True, slots=True)
class RankedPart:
    """A part of a file too long to send whole, and why it ranks where it does."""

    file: AttachedFile
    part: FilePart
    score: float
    terms: tuple[str, ...]

    @property
    def ref(self) -> str:
        return f"{self.file.ref}#{self.part.number}"

    def why(self, searched: bool) -> str:
        if self.terms:
            return f"matched {', '.join(self.terms)}; score {self.score:.2f}"
        if searched:
            return "the file matches none of the new message's words: in file order"
        return "no new message to match yet: in file order"


def rank_parts(files: Sequence[AttachedFile], draft: str | None) -> list[RankedPart]:
    """The parts of `files` worth sending for `draft`, best first: the parts of a file that
    match the message's words, by BM25 over the file's own parts; all the parts of a file
    that matches none of them (or with no message yet), in file order, after those."""
    terms = query_terms(draft) if draft else []
    matched: list[RankedPart] = []
    in_order: list[RankedPart] = []
    for file in files:
        index = file.part_index()
        weights = index.terms.weights(terms)
        # Words most parts hold tell none apart (their weight is near 0): the parts scored
        # are those holding the others, unless the message has no others.
        telling, _common = uncommon_terms(terms, index.terms)
        found = []
        for position in index.holding(telling or terms):
            words = index.spaced[position]
            score = index.terms.relevance(words, weights)
            if score > 0:
                hits = tuple(term for term in terms if occurrences(term, words))
                found.append(RankedPart(file, file.parts[position], score, hits))
        if found:
            matched.extend(found)
        else:
            in_order.extend(RankedPart(file, part, 0.0, ()) for part in file.parts)
    matched.sort(key=lambda r: (-r.score, r.file.id, r.part.number))
    return matched + in_order


def index_words(text: str) -> str:
    """A part's text as its index reads it: `snake_case` names are words apart, so "dsn"
    finds `switch_dsn`."""
    return text.replace("_", " ")


def plan_files(
    budget: Budget,
    counter: TokenCounter,
    files: Sequence[AttachedFile],
    allowance: int,
    draft: str | None,
) -> tuple[LayerPlan, str | None]:
    """The files layer: each file whole while it fits `allowance` (in the order attached);
    the parts of those that do not, most relevant to `draft` first, while they fit."""
    nominal, share = budget.nominal(Layer.FILES), budget.shares.files
    if not files:
        return LayerPlan(Layer.FILES, nominal, share, 0), None
    used = count_message(counter, "system", FILES_HEADER + "\n").tokens
    whole: list[tuple[AttachedFile, int]] = []
    split: list[AttachedFile] = []
    for file in files:
        cost = _block_cost(counter, file)
        if used + cost <= allowance:
            whole.append((file, cost))
            used += cost
        else:
            split.append(file)
    chosen: list[tuple[RankedPart, int]] = []
    taken: set[str] = set()
    searched = bool(draft and query_terms(draft))
    ranked_parts = rank_parts(split, draft)
    for ranked in ranked_parts:
        cost = _block_cost(counter, ranked.file, ranked.part)
        if used + cost <= allowance:
            chosen.append((ranked, cost))
            taken.add(ranked.ref)
            used += cost
    total = budget.total
    items = [
        PlanItem(
            file.ref,
            cost,
            f"{file.name}: whole file, {counted(file.lines, 'line')}, {_share(cost, total)}",
        )
        for file, cost in whole
    ]
    # Parts are sent (and listed) in file order, so the same choice is the same text.
    chosen.sort(key=lambda c: (c[0].file.id, c[0].part.number))
    items.extend(
        PlanItem(
            ranked.ref,
            cost,
            f"{ranked.file.name} lines {ranked.part.first_line}-{ranked.part.last_line} "
            f"(part {ranked.part.number} of {len(ranked.file.parts)}): {ranked.why(searched)}",
        )
        for ranked, cost in chosen
    )
    ranked_files = {r.file.id for r in ranked_parts if r.terms}
    left_out = [
        item for file in split for item in _parts_left(file, taken, file.id in ranked_files)
    ]
    notes = [note for file in files if (note := _disk_note(file))]
    hints = [
        f"{file.name} is {file.tokens:,} tokens, more than the files share leaves: it is sent "
        "in the parts most relevant to the new message"
        for file in split
    ]
    if not items:
        layer = LayerPlan(Layer.FILES, nominal, share, 0, (), tuple(left_out), tuple(notes))
        return layer, None
    blocks = [FILES_HEADER + "\n"]
    for file, _cost in whole:
        blocks.append(begin_line(file.name, file.lines) + file.text + end_line(file.name))
    for ranked, _cost in chosen:
        file, part = ranked.file, ranked.part
        blocks.append(
            begin_line(file.name, file.lines, part, len(file.parts))
            + file.part_text(part)
            + end_line(file.name)
        )
    layer = LayerPlan(
        Layer.FILES, nominal, share, used, tuple(items), tuple(left_out), tuple(notes), tuple(hints)
    )
    return layer, "".join(blocks)


def _block_cost(counter: TokenCounter, file: AttachedFile, part: FilePart | None = None) -> int:
    """What a file (or one of its parts) costs in the files message: its lines and its text."""
    if part is None:
        return (
            counter.count_text(begin_line(file.name, file.lines))
            + file.tokens
            + _end(counter, file)
        )
    begin = begin_line(file.name, file.lines, part, len(file.parts))
    return counter.count_text(begin) + part.tokens + _end(counter, file)


def _end(counter: TokenCounter, file: AttachedFile) -> int:
    return counter.count_text(end_line(file.name))


def _share(tokens: int, total: int) -> str:
    percent = tokens * 100 / total if total else 0.0
    return (
        f"{percent:.1f}% of the budget" if percent >= 0.1 or not tokens else "<0.1% of the budget"
    )


def _parts_left(file: AttachedFile, taken: set[str], matched: bool) -> list[LeftOut]:
    """The parts of `file` not sent, each run of neighbours as one item; `matched` says the
    file had parts matching the new message (the others were less relevant, not later)."""
    why = "less relevant to the new message" if matched else "later in the file"
    runs: list[list[FilePart]] = []
    for part in file.parts:
        if f"{file.ref}#{part.number}" in taken:
            continue
        if runs and runs[-1][-1].number == part.number - 1:
            runs[-1].append(part)
        else:
            runs.append([part])
    left = []
    for run in runs:
        first, last = run[0], run[-1]
        # What the parts hold (their BEGIN and END lines are not counted for what is not sent).
        tokens = sum(part.tokens for part in run)
        if first is last:
            ref, label = f"{file.ref}#{first.number}", f"part {first.number} of {len(file.parts)}"
        else:
            ref = f"{file.ref}#{first.number}-{last.number}"
            label = f"{len(run)} parts of {len(file.parts)}"
        left.append(
            LeftOut(
                ref,
                tokens,
                Reason.BUDGET,
                f"dropped: over the files budget ({why})",
                f"{file.name} lines {first.first_line}-{last.last_line}, {label}",
            )
        )
    return left


def _disk_note(file: AttachedFile) -> str | None:
    if file.disk is DiskState.CHANGED:
        return (
            f"{file.name} changed on disk since it was attached; the attached copy is sent "
            "(attach it again with --refresh to read it anew)"
        )
    if file.disk is DiskState.GONE:
        return f"{file.name} is no longer readable on disk; the attached copy is sent"
    return None
