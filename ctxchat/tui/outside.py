"""Which turns of the conversation the next request leaves out, and why, read off a plan."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan, Reason

_MESSAGE = "message:"
_MESSAGES = "messages:"


@dataclass(frozen=True, slots=True)
class OutsideRun:
    """Adjacent turns (ids `first` to `last`) outside the next request, for one reason."""

    first: int
    last: int
    count: int
    reason: Reason
    detail: str

    def divider(self) -> str:
        """The quiet line under the run's newest turn, about the turns above it ("" for a
        turn whose own marker already says it is not sent, such as a failed reply)."""
        what = f"{self.count:,} message{'s' if self.count != 1 else ''}"
        if self.reason is Reason.SUMMARIZED:
            return f"above: {self.detail}, {what}"
        if self.reason is Reason.BUDGET:
            return f"above: dropped, over the working budget, {what}"
        return ""


@dataclass(frozen=True, slots=True)
class OutsideMarks:
    """Every run left out of the next request, oldest first, and the turns still sent
    from inside them (recall brings some back); looked up by message id."""

    runs: tuple[OutsideRun, ...] = ()
    sent: frozenset[str] = frozenset()

    def run_of(self, message_id: int) -> OutsideRun | None:
        """The narrowest run holding `message_id`, unless the message is sent anyway."""
        if f"{_MESSAGE}{message_id}" in self.sent:
            return None
        # Runs start in order: only those starting at or before the id can hold it.
        end = bisect.bisect_right([run.first for run in self.runs], message_id)
        holding = [run for run in self.runs[:end] if run.last >= message_id]
        return min(holding, key=lambda run: run.last - run.first, default=None)


def _span(ref: str) -> tuple[int, int] | None:
    if ref.startswith(_MESSAGES):
        first, _, last = ref[len(_MESSAGES) :].partition("-")
        return int(first), int(last)
    if ref.startswith(_MESSAGE):
        one = int(ref[len(_MESSAGE) :])
        return one, one
    return None


def _count(label: str, span: tuple[int, int]) -> int:
    if span[0] == span[1]:
        return 1
    number = label.split(" ", 1)[0].replace(",", "")
    return int(number) if number.isdigit() else span[1] - span[0] + 1


def outside_marks(plan: ContextPlan | None) -> OutsideMarks:
    """The conversation's turns `plan` leaves out (summarized, dropped, excluded); a turn a
    layer still sends (recall brings some back) is not marked."""
    if plan is None:
        return OutsideMarks()
    sent = frozenset(
        item.ref for layer in plan.layers for item in layer.items if item.ref.startswith(_MESSAGE)
    )
    runs = []
    # Recall lists the turns it found and did not bring back (in working memory, in the
    # summary, over its share): where a turn stands is the working layer's to say.
    for left in (
        o for layer in plan.layers if layer.layer is not Layer.RECALL for o in layer.left_out
    ):
        span = _span(left.ref)
        if span is None:
            continue
        count = _count(left.label, span)
        runs.append(OutsideRun(span[0], span[1], count, left.reason, left.detail))
    runs.sort(key=lambda run: (run.first, run.last))
    return OutsideMarks(tuple(runs), sent)
