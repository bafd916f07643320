"""Recall and the summary in force agree: a turn the summary covers comes back only for a
detail the question names that the summary lacks, and says so; otherwise it stays out."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ctxchat.core.history import SummaryState
from ctxchat.core.termstats import occurrences, spaced


@dataclass(frozen=True, slots=True)
class SummaryCover:
    """The summary in force as the request sends it: its version, the last message it
    covers, its text as sent (cut to its share, maybe) and the details it lost."""

    version: int
    last_id: int
    said: str
    """The summary's text as sent, spaced for term lookups."""
    lost: tuple[tuple[int, str], ...] = ()

    @classmethod
    def of(cls, summary: SummaryState | None, sent: str | None) -> SummaryCover | None:
        """The cover of `summary` when the request sends it (`sent` is its text there)."""
        if summary is None or sent is None:
            return None
        return cls(summary.version, summary.last_id, spaced(sent), summary.lost)

    def covers(self, message_id: int | None) -> bool:
        return message_id is not None and message_id <= self.last_id

    def gap(self, message_id: int, matched: Sequence[str], question: Collection[str]) -> str | None:
        """What the question asks of message `message_id` that the summary lacks: a term
        the message matched that the summary does not hold, or a detail of that message the
        summary lost whose words the question names; None when the summary holds it."""
        # A lost detail first: it is named as written ("Marlin"), a term only as searched.
        for lost_from, detail in self.lost:
            if lost_from == message_id and any(occurrences(t, spaced(detail)) for t in question):
                return detail
        for term in matched:
            if not occurrences(term, self.said):
                return term
        return None

    def left_out_detail(self) -> str:
        """Why a covered turn is not recalled: the summary holds what the question asks."""
        return f"in summary v{self.version}"

    def recalled_label(self, gap: str, why: str) -> str:
        """How a covered turn recalled for a detail is listed on the panel."""
        return f"in summary v{self.version}, recalled for “{gap}” the summary lacks; {why}"

    def brought_label(self, anchor: int, why: str) -> str:
        """How a covered turn brought along with a recalled one (its question, its answer)
        is listed."""
        return f"in summary v{self.version}, brought with #{anchor}; {why}"
