"""The check of a summary the model wrote, besides what it lost: whether it repeats its own
instructions or the transcript it was given, and whether it states numbers and names the
folded turns (and the summary before it) do not hold: invented."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.history import HistoryMessage
from ctxchat.core.summary import HEADINGS, SummaryStrategy, instruction_sentences
from ctxchat.core.summary_loss import SummaryIndex

SHINGLE = 8
"""Words in a row that, found in the transcript too, were copied from it."""
COPIED_SHARE = 0.5
"""A summary with at least this share of its word runs copied repeats the transcript."""
MIN_SHINGLES = 3
"""A summary shorter than this many runs is too short to tell copying from quoting."""
SHOWN = 5
"""Invented details named at most (the rest counted)."""
_INVENTED_KINDS = (DetailKind.NUMBER, DetailKind.NAME, DetailKind.DATE, DetailKind.URL)
_ROLE_LINE = re.compile(r"^\s*\[(user|assistant|system)\]", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class SummaryFaults:
    """What the check found: `instructions` repeated as written, the share of the summary
    `copied` word for word from the transcript (0 when it does not repeat it), and details
    it states that the turns it folds do not hold (`invented`)."""

    instructions: tuple[str, ...] = ()
    copied: float = 0.0
    invented: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.instructions or self.copied or self.invented)

    def words(self) -> tuple[str, ...]:
        """Each fault as a sentence a user reads (and the store keeps)."""
        found = []
        if self.instructions:
            quoted = "; ".join(f"“{line}”" for line in self.instructions[:2])
            found.append(f"repeats its own instructions ({quoted})")
        if self.copied:
            found.append(f"repeats the transcript ({self.copied:.0%} of it copied word for word)")
        if self.invented:
            shown = ", ".join(f"“{text}”" for text in self.invented[:SHOWN])
            more = len(self.invented) - SHOWN
            extra = f" and {more} more" if more > 0 else ""
            found.append(f"states what the folded turns do not hold: {shown}{extra}")
        return tuple(found)


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def repeated_instructions(summary: str, strategy: SummaryStrategy) -> tuple[str, ...]:
    """The sentences of the fold request's instructions (and its headings) the summary
    repeats as written."""
    text = _folded(summary)
    candidates = [*instruction_sentences(strategy), *HEADINGS]
    return tuple(line for line in candidates if _folded(line) in text)


def _shingles(text: str) -> list[tuple[str, ...]]:
    words = re.findall(r"\w+", text.casefold())
    return [tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)]


def copied_share(summary: str, transcript: str) -> float:
    """The share of the summary's runs of words found in the transcript as they are (0 when
    it is too short to tell); role lines as the request wrote them count as all copied."""
    if _ROLE_LINE.search(summary):
        return 1.0
    runs = _shingles(summary)
    if len(runs) < MIN_SHINGLES:
        return 0.0
    source = set(_shingles(transcript))
    share = sum(1 for run in runs if run in source) / len(runs)
    return share if share >= COPIED_SHARE else 0.0


def invented_details(summary: str, sources: Sequence[str]) -> tuple[str, ...]:
    """Numbers, names, dates and links the summary states that none of `sources` (the
    folded turns, the summary before it, what it keeps word for word) holds."""
    # Imported here: its patterns compile when a summary is checked, not at the app's start.
    from ctxchat.core.details import capitalized_mid_sentence, details_in

    index = SummaryIndex("\n\n".join(sources))
    names = capitalized_mid_sentence([summary, *sources])
    found: list[str] = []
    for detail in details_in(summary, names):
        invented = detail.kind in _INVENTED_KINDS and not index.holds(detail)
        if invented and detail.text not in found:
            found.append(detail.text)
    return tuple(found)


def check_summary(
    summary: str,
    folded: Sequence[HistoryMessage],
    *,
    strategy: SummaryStrategy,
    previous: str | None = None,
    kept: Sequence[str] = (),
) -> SummaryFaults:
    """What is wrong with `summary` (the model's text) of the `folded` turns, made from
    `previous` (the summary before it), besides what it lost."""
    turns = [m.content for m in folded if m.sendable]
    transcript = "\n\n".join(turns)
    sources = [*turns, *([previous] if previous else []), *kept]
    return SummaryFaults(
        repeated_instructions(summary, strategy),
        copied_share(summary, transcript),
        invented_details(summary, sources),
    )
