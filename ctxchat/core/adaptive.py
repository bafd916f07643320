"""A budget that adapts: recall, the task state and attached files take their share when
they have something to send, and long conversations move share from working memory to the
summary and recall."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ctxchat.core.budget import BudgetShares


@dataclass(frozen=True, slots=True)
class AdaptivePolicy:
    """How shares shift.

    `recall_share` goes to recall, out of working memory, while recall has results; more,
    up to `recall_most`, when its strong matches need more (see `core.recall.recall_demand`).
    Past `long_after_turns` user turns, working memory also yields `long_shift`: half to the
    summary and half to recall (all to the summary when recall is off). `task_share` goes to
    the task layer while the conversation has a task, `files_share` to the files layer while
    files are attached, both out of working memory too.
    """

    recall_share: float = 0.10
    recall_most: float = 0.80
    long_after_turns: int = 20
    long_shift: float = 0.10
    recall_enabled: bool = True
    task_share: float = 0.0
    files_share: float = 0.0


@dataclass(frozen=True, slots=True)
class SharesInForce:
    """The shares a request uses and why they differ from the configured ones."""

    shares: BudgetShares
    reasons: tuple[str, ...]


def _pct(value: float) -> str:
    return (
        f"{value * 100:.0f}%"
        if abs(value * 100 - round(value * 100)) < 1e-9
        else f"{value * 100:.1f}%"
    )


@dataclass(frozen=True, slots=True)
class RecallDemand:
    """What recall's strong matches need: how many there are and their share of the budget."""

    matches: int = 0
    share: float = 0.0


def shares_in_force(
    base: BudgetShares,
    *,
    turns: int,
    has_recall: bool,
    policy: AdaptivePolicy | None,
    has_task: bool = False,
    files: int = 0,
    demand: RecallDemand = RecallDemand(),
) -> SharesInForce:
    """The configured shares adjusted for this request (unchanged when policy is None).

    `has_task` says the conversation has a task state to send, `files` how many files are
    attached to it."""
    if policy is None:
        return SharesInForce(base, ())
    working, summary, recall = base.working, base.summary, base.recall
    task, attached = base.task, base.files
    reasons: list[str] = []
    # The rarely changing layers first, as they are sent.
    if has_task and policy.task_share > 0:
        moved = min(policy.task_share, working)
        working -= moved
        task += moved
        reasons.append(f"the conversation has a task: it takes {_pct(moved)} from working")
    if files and policy.files_share > 0:
        moved = min(policy.files_share, working)
        working -= moved
        attached += moved
        what = "a file is attached: it takes" if files == 1 else f"{files} files: they take"
        reasons.append(f"{what} {_pct(moved)} from working")
    if has_recall and policy.recall_enabled and policy.recall_share > 0:
        wanted = max(policy.recall_share, min(policy.recall_most, demand.share))
        moved = min(wanted, working)
        working -= moved
        recall += moved
        if wanted > policy.recall_share:
            reasons.append(
                f"recall found {demand.matches} strong matches for {_pct(demand.share)} of the "
                f"budget: it takes {_pct(moved)} from working (at most {_pct(policy.recall_most)})"
            )
        else:
            reasons.append(f"recall found earlier messages: it takes {_pct(moved)} from working")
    if turns > policy.long_after_turns and policy.long_shift > 0 and working > 0:
        moved = min(policy.long_shift, working)
        working -= moved
        to_recall = moved / 2 if policy.recall_enabled else 0.0
        summary += moved - to_recall
        recall += to_recall
        if to_recall:
            reasons.append(
                f"turn {turns} > {policy.long_after_turns}: working yields {_pct(moved)} "
                f"({_pct(moved - to_recall)} to summary, {_pct(to_recall)} to recall)"
            )
        else:
            reasons.append(
                f"turn {turns} > {policy.long_after_turns}: working yields {_pct(moved)} to summary"
            )
    shares = dataclasses.replace(
        base,
        working=round(working, 10),
        summary=round(summary, 10),
        recall=round(recall, 10),
        task=round(task, 10),
        files=round(attached, 10),
    )
    return SharesInForce(shares, tuple(reasons))
