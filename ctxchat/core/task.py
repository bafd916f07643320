"""The task state: a conversation's goal, what is done and what is pending, as one marked block.

The state of the work in hand is the fourth kind of context beside working memory, the
summary and memory: with it the model (and the user) can pick the work up where it stopped.
Items are numbered from 1 in the order they were added; `ctxchat task done N` names them so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import preview
from ctxchat.core.plan import LayerPlan, LeftOut, PlanItem, Reason
from ctxchat.core.tokens import TokenCounter, count_message

TASK_OPENING = (
    "[Task state, kept by the user: the goal, what is done and what is pending. "
    "Resume the work from here.]"
)
TASK_CLOSING = "[End of task state.]"

# The most characters one goal or item holds: a task is a short list, not a document.
MAX_TEXT = 2_000


class TaskError(ValueError):
    """A change the task state cannot take; the message says why in one line."""


def one_line(text: str) -> str:
    """`text` as one line: whitespace (new lines included) folded to single spaces."""
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class TaskItem:
    """One step of the task: its text, and whether it is done."""

    text: str
    done: bool = False


@dataclass(frozen=True, slots=True)
class TaskState:
    """A conversation's task: its goal and its steps, in the order they were added."""

    goal: str = ""
    items: tuple[TaskItem, ...] = ()

    @property
    def empty(self) -> bool:
        """Nothing to send: no goal and no steps."""
        return not self.goal and not self.items

    def pending(self) -> list[int]:
        """The numbers (from 1) of the steps not done yet."""
        return [number for number, item in enumerate(self.items, 1) if not item.done]

    def with_goal(self, text: str) -> TaskState:
        """The task with another goal ("" clears it)."""
        return dataclasses.replace(self, goal=_checked(text, allow_empty=True))

    def with_step(self, text: str) -> TaskState:
        """The task with one more pending step, numbered after the others."""
        return dataclasses.replace(self, items=(*self.items, TaskItem(_checked(text))))

    def with_done(self, number: int, done: bool = True) -> TaskState:
        """The task with step `number` marked done (or pending again)."""
        index = self._index(number)
        items = list(self.items)
        items[index] = dataclasses.replace(items[index], done=done)
        return dataclasses.replace(self, items=tuple(items))

    def without_step(self, number: int) -> TaskState:
        """The task without step `number` (the later ones move up a number)."""
        index = self._index(number)
        return dataclasses.replace(self, items=self.items[:index] + self.items[index + 1 :])

    def _index(self, number: int) -> int:
        if not self.items:
            raise TaskError("the task has no steps yet: add one with `task add`")
        if not 1 <= number <= len(self.items):
            raise TaskError(f"there is no step {number}: the task has steps 1 to {len(self.items)}")
        return number - 1


def _checked(text: str, *, allow_empty: bool = False) -> str:
    line = one_line(text)
    if not line and not allow_empty:
        raise TaskError("a step needs some text")
    if len(line) > MAX_TEXT:
        raise TaskError(
            f"that is {len(line):,} characters; a goal or step holds at most {MAX_TEXT:,}"
        )
    return line


def goal_line(goal: str) -> str:
    return f"Goal: {goal}\n"


def step_line(number: int, item: TaskItem) -> str:
    return f"{number}. [{'done' if item.done else 'pending'}] {item.text}\n"


def render_task(goal: str, steps: list[tuple[int, TaskItem]]) -> str:
    """The task message: the opening, the goal, the steps kept (with their numbers), the closing."""
    lines = [TASK_OPENING + "\n"]
    if goal:
        lines.append(goal_line(goal))
    lines.extend(step_line(number, item) for number, item in steps)
    lines.append(TASK_CLOSING)
    return "".join(lines)


def plan_task(
    budget: Budget, counter: TokenCounter, task: TaskState | None, allowance: int
) -> tuple[LayerPlan, str | None]:
    """The task layer: the goal and every step while they fit `allowance`.

    When they do not, done steps go first (the oldest first), then pending steps from the
    last; each is listed as left out. Without room for the goal itself nothing is sent.
    """
    nominal, share = budget.nominal(Layer.TASK), budget.shares.task
    if task is None or task.empty:
        return LayerPlan(Layer.TASK, nominal, share, 0), None
    # The message costs its overhead, opening and closing once, then a line for each part.
    frame = count_message(counter, "system", TASK_OPENING + "\n").tokens + counter.count_text(
        TASK_CLOSING
    )
    goal_cost = counter.count_text(goal_line(task.goal)) if task.goal else 0
    steps = [
        (number, item, counter.count_text(step_line(number, item)))
        for number, item in enumerate(task.items, 1)
    ]
    if frame + goal_cost > allowance:
        whole = frame + goal_cost + sum(cost for *_, cost in steps)
        left = LeftOut(
            "task", whole, Reason.BUDGET, "dropped: over the task budget", _summary(task)
        )
        return LayerPlan(Layer.TASK, nominal, share, 0, left_out=(left,)), None
    used = frame + goal_cost
    # Which steps to give up first: done ones, oldest first, then pending ones, newest first.
    order = [s for s in steps if s[1].done] + [s for s in reversed(steps) if not s[1].done]
    total = used + sum(cost for *_, cost in steps)
    dropped: set[int] = set()
    for number, _item, cost in order:
        if total <= allowance:
            break
        dropped.add(number)
        total -= cost
    kept = [(number, item) for number, item, _ in steps if number not in dropped]
    left_out = tuple(
        LeftOut(
            f"task:{number}",
            cost,
            Reason.BUDGET,
            "dropped: over the task budget" + (" (done steps go first)" if item.done else ""),
            f"[{'done' if item.done else 'pending'}] {preview(item.text)}",
        )
        for number, item, cost in steps
        if number in dropped
    )
    if not kept and not task.goal:
        return LayerPlan(Layer.TASK, nominal, share, 0, left_out=left_out), None
    items: list[PlanItem] = []
    if task.goal:
        items.append(PlanItem("task:goal", goal_cost, f"goal: {preview(task.goal)}"))
    items.extend(
        PlanItem(
            f"task:{number}", cost, f"[{'done' if item.done else 'pending'}] {preview(item.text)}"
        )
        for number, item, cost in steps
        if number not in dropped
    )
    layer = LayerPlan(Layer.TASK, nominal, share, total, tuple(items), left_out)
    return layer, render_task(task.goal, kept)


def _summary(task: TaskState) -> str:
    done = sum(1 for item in task.items if item.done)
    steps = f"{len(task.items)} steps, {done} done"
    return f"{preview(task.goal, 40)} ({steps})" if task.goal else steps


class TaskAction(StrEnum):
    """A change the model may propose to the task state (the user accepts or rejects it)."""

    GOAL = "goal"
    ADD = "add"
    DONE = "done"


TASK_PROPOSAL_INSTRUCTIONS = """\
The same array may also hold changes to the user's task state (listed below as the current
task), each an object with "message_id" as above and:
  {"task": "goal", "text": "..."} to set the task's goal,
  {"task": "add", "text": "..."} to add a pending step,
  {"task": "done", "step": N} to mark pending step N done.
Propose a change only when the conversation shows it: a goal stated, a step agreed, a step
finished."""


@dataclass(frozen=True, slots=True)
class TaskProposal:
    """A change to the task state the model proposes; nothing changes until the user accepts."""

    action: TaskAction
    text: str
    step: int | None = None
    message_id: int | None = None

    def describe(self) -> str:
        """The change in words, as the review shows it."""
        if self.action is TaskAction.GOAL:
            return f"set the goal: {self.text}"
        if self.action is TaskAction.ADD:
            return f"add a step: {self.text}"
        return f"mark step {self.step} done: {self.text}"

    def applied_to(self, task: TaskState) -> TaskState:
        """`task` with this change made (raises TaskError when it no longer applies)."""
        if self.action is TaskAction.GOAL:
            return task.with_goal(self.text)
        if self.action is TaskAction.ADD:
            return task.with_step(self.text)
        assert self.step is not None
        return task.with_done(self.step)


def read_task_proposal(
    item: Mapping[str, Any], task: TaskState | None, message_id: int | None
) -> TaskProposal | str:
    """A task change from one element of the model's reply, or the problem with it."""
    action_name = str(item.get("task", "")).strip().lower()
    try:
        action = TaskAction(action_name)
    except ValueError:
        return f'has task {item.get("task")!r}, not "goal", "add" or "done"'
    if action is TaskAction.DONE:
        step = item.get("step")
        if isinstance(step, bool) or not isinstance(step, int):
            return "marks no step done (a step number is needed)"
        if task is not None and step not in task.pending():
            return f"marks step {step} done, which is not a pending step"
        known = task.items[step - 1].text if task is not None else ""
        return TaskProposal(action, known, step, message_id)
    given = item.get("text")
    if not isinstance(given, str) or not one_line(given):
        return "changes the task with no text"
    line = one_line(given)[:MAX_TEXT]
    if task is not None and action is TaskAction.GOAL and line == task.goal:
        return "sets the goal the task already has"
    return TaskProposal(action, line, None, message_id)
