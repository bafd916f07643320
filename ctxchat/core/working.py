"""Working memory: which recent turns go into the request, by recency or by score."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ctxchat.core.history import HistoryMessage


class Selection(StrEnum):
    RECENCY = "recency"
    SCORED = "scored"


@dataclass(frozen=True, slots=True)
class WorkingChoice:
    """Indexes (into the candidates) of the chosen messages, chronological, and what was short."""

    chosen: tuple[int, ...]
    tokens: int
    recent_shortfall: int  # how many of the last min_recent messages did not fit
    contiguous: bool = True  # the chosen are a run up to the newest candidate

    @property
    def start(self) -> int:
        """With a contiguous choice, the index of its oldest message."""
        return self.chosen[0] if self.chosen else -1


_SIGNAL = re.compile(
    r"```|\b(decid\w*|must|never|always|important|remember|requirement|deadline|agreed)\b|\d",
    re.IGNORECASE,
)


def message_score(message: HistoryMessage, age: int) -> float:
    """Recency plus role and content signals; higher is more worth keeping.

    `age` is how many candidate messages are newer than this one.
    """
    recency = math.exp(-age / 50.0)
    role = 0.3 if message.role == "user" else 0.1
    signals = min(len(_SIGNAL.findall(message.content[:4000])), 5) * 0.15
    question = 0.15 if "?" in message.content[:4000] else 0.0
    # Long messages cost more of the budget for the same signal.
    size = 0.2 * math.log10(max(message.tokens, 10) / 10)
    return recency + role + signals + question - size


def select_working(
    candidates: Sequence[HistoryMessage],
    budget: int,
    min_recent: int,
    selection: Selection = Selection.RECENCY,
) -> WorkingChoice:
    """Keep the last `min_recent` candidates, then fill `budget` with older ones.

    Recency takes older messages newest-first and stops at the first that does not fit, so
    the window stays contiguous; scored takes the best-scoring older messages that fit.
    """
    count = len(candidates)
    recent_start = max(0, count - min_recent)
    used = 0
    start = count
    # The newest messages are kept first; if even they do not fit, the oldest of them go.
    while start > recent_start and used + candidates[start - 1].tokens <= budget:
        start -= 1
        used += candidates[start].tokens
    shortfall = start - recent_start
    if shortfall or selection is Selection.RECENCY:
        while start > 0 and not shortfall and used + candidates[start - 1].tokens <= budget:
            start -= 1
            used += candidates[start].tokens
        return WorkingChoice(tuple(range(start, count)), used, shortfall)
    chosen = list(range(recent_start, count))
    ranked = sorted(
        range(recent_start),
        key=lambda i: (-message_score(candidates[i], count - 1 - i), -i),
    )
    for index in ranked:
        cost = candidates[index].tokens
        if used + cost <= budget:
            used += cost
            chosen.append(index)
    chosen.sort()
    return WorkingChoice(tuple(chosen), used, 0, contiguous=False)
