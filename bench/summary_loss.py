"""Benchmark: how well the loss report finds what a summary dropped, and how often it cries
wolf about what a summary kept in other words.

On hand-written corpora (conversations with planted facts, summaries that drop some and
reword the rest): recall is the share of dropped planted facts the report names, false
alarms the share of kept (reworded) planted facts it names anyway. A report item names a
planted fact when it comes from the fact's turn and one text holds the other. Two corpora:
`summary_loss_corpus.py`, which the rules were tuned on, and `summary_loss_heldout.py`,
written afterwards and never tuned on (its figures are the honest ones).
Run: python bench/summary_loss.py
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import summary_loss_heldout
from summary_loss_corpus import CASES, Case, Planted

from ctxchat.core.history import HistoryMessage
from ctxchat.core.summary_loss import LostDetail, loss_report


@dataclass
class Score:
    """Planted facts named by the report, by whether the summary dropped or kept them."""

    dropped_named: int = 0
    dropped_missed: list[str] = field(default_factory=list)
    kept_named: list[str] = field(default_factory=list)
    kept_quiet: int = 0
    other_items: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    by_kind_named: Counter[str] = field(default_factory=Counter)

    @property
    def dropped(self) -> int:
        return self.dropped_named + len(self.dropped_missed)

    @property
    def kept(self) -> int:
        return self.kept_quiet + len(self.kept_named)

    @property
    def recall(self) -> float:
        return self.dropped_named / self.dropped if self.dropped else 1.0

    @property
    def false_alarms(self) -> float:
        return len(self.kept_named) / self.kept if self.kept else 0.0


def messages_of(case: Case) -> list[HistoryMessage]:
    return [
        HistoryMessage(number, "user" if number % 2 else "assistant", text, len(text) // 4)
        for number, text in enumerate(case.turns, start=1)
    ]


SENTENCES = {"decision", "constraint"}


def names(item: LostDetail, fact: Planted) -> bool:
    """Whether a report item is about the planted fact: same turn, both a sentence (a
    decision or a rule) or both not, and one text in the other."""
    if item.message_id != fact.turn + 1:
        return False
    if (item.kind.value in SENTENCES) != (fact.kind in SENTENCES):
        return False
    found, planted = item.text.casefold(), fact.text.casefold()
    return planted in found or found in planted


def score(cases: tuple[Case, ...] = CASES) -> Score:
    result = Score()
    for case in cases:
        report = loss_report(messages_of(case), case.summary)
        used: set[int] = set()
        for fact in case.planted:
            hits = [i for i, item in enumerate(report.lost) if names(item, fact)]
            used.update(hits)
            named = bool(hits)
            if fact.text in case.dropped:
                result.by_kind[fact.kind] += 1
                result.by_kind_named[fact.kind] += named
                if named:
                    result.dropped_named += 1
                else:
                    result.dropped_missed.append(f"{case.name}: {fact.text}")
            elif named:
                result.kept_named.append(f"{case.name}: {fact.text}")
            else:
                result.kept_quiet += 1
        result.other_items += len(report.lost) - len(used)
    return result


def show(title: str, cases: tuple[Case, ...]) -> None:
    result = score(cases)
    facts = sum(len(case.planted) for case in cases)
    print(f"{title}: {len(cases)} conversations, {facts} planted facts")
    print(f"recall of dropped facts: {result.dropped_named}/{result.dropped} = {result.recall:.0%}")
    print(
        f"false alarms on kept facts: {len(result.kept_named)}/{result.kept} = "
        f"{result.false_alarms:.0%}"
    )
    print(f"other details reported (not planted): {result.other_items}")
    for kind in sorted(result.by_kind):
        print(f"  dropped {kind:<11} {result.by_kind_named[kind]}/{result.by_kind[kind]} named")
    for missed in result.dropped_missed:
        print(f"  missed: {missed}")
    for alarm in result.kept_named:
        print(f"  false alarm: {alarm}")


def main() -> None:
    show("tuning corpus", CASES)
    print()
    show("held-out corpus", summary_loss_heldout.CASES)


if __name__ == "__main__":
    main()
