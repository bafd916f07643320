"""Summarization policy: what to fold and when, the prompts, how long a summary may be, and
cutting an over-long one."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.task_request import task_request

if TYPE_CHECKING:  # counting is done by the caller's counter; no need to load tokens here
    from ctxchat.core.tokens import TokenCounter

# What a system message costs besides its text (see `tokens.MESSAGE_OVERHEAD`), and a token
# for the header and the text meeting: a summary of `summary_allowance` tokens fits its share.
_SUMMARY_MESSAGE_OVERHEAD = 3 + 1 + 1

SUMMARY_HEADER = "Summary of the earlier conversation (the original messages are not shown):"


class SummaryStrategy(StrEnum):
    """How the summary is written: prose (~3x), one statement a line (~5-10x), key: value (~10-20x)."""

    SUMMARIZE = "summarize"
    SEMANTIC = "semantic"
    KEYVALUE = "keyvalue"


@dataclass(frozen=True, slots=True)
class SummaryPolicy:
    """When automatic folding starts.

    Messages that left working memory are folded once there are `min_messages` of them or
    they hold `min_tokens`; `max_unsummarized` (0 = off) also folds the oldest messages
    when more than that many are not yet in the summary, even if they still fit.
    """

    auto: bool = True
    min_messages: int = 6
    min_tokens: int = 2000
    max_unsummarized: int = 0


@dataclass(frozen=True, slots=True)
class FoldRange:
    """A contiguous run of messages to fold into the summary next."""

    messages: tuple[HistoryMessage, ...]

    @property
    def first_id(self) -> int:
        return self.messages[0].id

    @property
    def last_id(self) -> int:
        return self.messages[-1].id

    @property
    def tokens(self) -> int:
        return sum(m.tokens for m in self.messages)


def unsummarized(
    history: Sequence[HistoryMessage], summary: SummaryState | None
) -> list[HistoryMessage]:
    """Sendable messages the summary does not cover yet, chronological."""
    last = summary.last_id if summary else -1
    return [m for m in history if m.id > last and m.sendable]


def pending_fold(
    history: Sequence[HistoryMessage],
    summary: SummaryState | None,
    working_ids: Collection[int],
    policy: SummaryPolicy,
    *,
    min_recent: int,
    manual: bool = False,
) -> FoldRange | None:
    """The messages to fold now, or None.

    Manual folding ("summarize now") takes every unsummarized message but the last
    `min_recent`; automatic folding takes the messages that left working memory (those
    not in `working_ids`) once the policy's threshold is reached.
    """
    pending = unsummarized(history, summary)
    keep = min(len(pending), min_recent)
    foldable = pending[: len(pending) - keep]
    if manual:
        return FoldRange(tuple(foldable)) if foldable else None
    if not policy.auto:
        return None
    left = [m for m in foldable if m.id not in working_ids]
    # Only a prefix can be folded, so the summary always covers a contiguous range.
    cut = 0
    while cut < len(left) and left[cut] is foldable[cut]:
        cut += 1
    count = cut
    if policy.max_unsummarized and len(pending) > policy.max_unsummarized:
        count = max(count, min(len(foldable), len(pending) - policy.max_unsummarized))
    chosen = foldable[:count]
    if not chosen:
        return None
    if (
        len(chosen) >= policy.min_messages
        or sum(m.tokens for m in chosen) >= policy.min_tokens
        or count > cut
    ):
        return FoldRange(tuple(chosen))
    return None


def batches_for_summarizer(
    messages: Sequence[HistoryMessage], max_tokens: int
) -> list[tuple[HistoryMessage, ...]]:
    """Split messages into runs that each fit the summarizer's input (a huge one goes alone)."""
    batches: list[tuple[HistoryMessage, ...]] = []
    current: list[HistoryMessage] = []
    used = 0
    for message in messages:
        if current and used + message.tokens > max_tokens:
            batches.append(tuple(current))
            current, used = [], 0
        current.append(message)
        used += message.tokens
    if current:
        batches.append(tuple(current))
    return batches


_INSTRUCTIONS = {
    SummaryStrategy.SUMMARIZE: (
        "Write a concise prose summary of the conversation, about a third of its length. "
        "Keep decisions, facts, constraints, names, numbers and open questions; drop pleasantries."
    ),
    SummaryStrategy.SEMANTIC: (
        "Rewrite the conversation as short standalone statements, one per line, each a fact, "
        "decision, constraint or open question. No prose, no repetition."
    ),
    SummaryStrategy.KEYVALUE: (
        "Reduce the conversation to lines of the form `decision: …`, `constraint: …`, "
        "`action: …` or `open: …`, one item per line, nothing else."
    ),
}


WRITE_SUMMARY = "Write the summary."
WRITE_UPDATED = "Write the updated summary: the current summary with the new messages folded in."
HEADINGS = ("Current summary:", "New messages to fold into it:", "Messages:")
"""The lines of a fold request around the summary and the turns: a summary that repeats
them repeats its instructions (see `core/summary_check.py`)."""


def instruction_sentences(strategy: SummaryStrategy) -> list[str]:
    """Every sentence of a fold request's instructions, as written."""
    prompt = summary_system_prompt(strategy)
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", prompt) if s.strip()]
    return [*sentences, WRITE_SUMMARY, WRITE_UPDATED]


def summary_system_prompt(strategy: SummaryStrategy) -> str:
    return (
        "You maintain the running summary of a conversation between a user and an assistant. "
        + _INSTRUCTIONS[strategy]
        + " Write in the language of the conversation. Output only the summary."
    )


def format_transcript(messages: Sequence[HistoryMessage]) -> str:
    return "\n\n".join(f"[{m.role}] {m.content}" for m in messages)


def build_fold_request(
    strategy: SummaryStrategy,
    previous: str | None,
    messages: Sequence[HistoryMessage],
    *,
    system_role: bool = True,
) -> list[dict[str, str]]:
    """The summarizer request for one incremental fold: previous summary + new messages only
    (the instructions in the user message when `system_role` is False: see `task_request`)."""
    parts: list[str] = []
    if previous:
        parts.append(f"{HEADINGS[0]}\n" + previous.strip())
        parts.append(f"{HEADINGS[1]}\n" + format_transcript(messages))
        parts.append(WRITE_UPDATED)
    else:
        parts.append(f"{HEADINGS[2]}\n" + format_transcript(messages))
        parts.append(WRITE_SUMMARY)
    return task_request(
        summary_system_prompt(strategy), "\n\n".join(parts), system_role=system_role
    )


def summary_allowance(budget: Budget, counter: TokenCounter, wanted: int = 0) -> int:
    """The most tokens a summary's text may have: what its share of the budget leaves after
    the summary message's header, or `wanted` (`[summary] max_tokens`) when that is less."""
    header = counter.count_text(SUMMARY_HEADER + "\n")
    share = max(0, budget.nominal(Layer.SUMMARY) - header - _SUMMARY_MESSAGE_OVERHEAD)
    return min(wanted, share) if wanted > 0 else share


@dataclass(frozen=True, slots=True)
class SummaryRun:
    """The latest summarization of a conversation, as the plan tells it: running now, or
    ended in `failure`."""

    running: bool = False
    failure: str | None = None


def unsummarized_detail(run: SummaryRun | None = None) -> str:
    """Why turns that left working memory, and are not in the summary, are not sent: said so
    that no one takes them for remembered."""
    base = "dropped: over the working budget, not in the summary yet"
    if run is not None and run.running:
        return f"{base}: being summarized now"
    if run is not None and run.failure:
        return f"{base}: the last summary failed ({run.failure.rstrip('.')})"
    return f"{base}, so the model does not see it"


def summary_message(summary: SummaryState) -> str:
    """The content of the summary layer's system message."""
    return SUMMARY_HEADER + "\n" + summary.text.strip()


@dataclass(frozen=True, slots=True)
class CutText:
    text: str
    cut: bool


_SENTENCE_END = re.compile(r"(?<=[.!?。！？…])\s+|\n+")
_LAST_SENTENCE_END = re.compile(r"[.!?。！？…][\"'”’)\]*_]*(?=\s|$)|\n")


def whole_sentences(text: str) -> str:
    """`text` up to the end of its last whole sentence (or line): what a reply cut off in
    the middle of a sentence keeps. "" when not even one sentence ended."""
    ends = [match.end() for match in _LAST_SENTENCE_END.finditer(text)]
    return text[: ends[-1]].rstrip() if ends else ""


def cut_at_sentence(text: str, max_tokens: int, counter: TokenCounter) -> CutText:
    """The longest start of `text` ending at a sentence boundary that fits `max_tokens`.

    With no sentence short enough, the cut falls at a word boundary instead.
    """
    if counter.count_text(text) <= max_tokens:
        return CutText(text, False)
    ends = [match.start() for match in _SENTENCE_END.finditer(text)]
    best = _longest_fitting(text, ends, max_tokens, counter)
    if best is None:
        words = [match.start() for match in re.finditer(r"\s+", text)]
        best = _longest_fitting(text, words, max_tokens, counter)
    return CutText(text[:best].rstrip() if best else "", True)


def _longest_fitting(
    text: str, boundaries: list[int], max_tokens: int, counter: TokenCounter
) -> int | None:
    low, high, found = 0, len(boundaries) - 1, None
    while low <= high:
        middle = (low + high) // 2
        end = boundaries[middle]
        if end > 0 and counter.count_text(text[:end].rstrip()) <= max_tokens:
            found = end
            low = middle + 1
        else:
            high = middle - 1
    return found
