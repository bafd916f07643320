"""TaskBook: every change to a conversation's task state, by the user or accepted from the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ctxchat.core.task import TaskError, TaskProposal, TaskState

__all__ = ["TaskBook", "TaskDecision", "TaskError"]


@dataclass(frozen=True, slots=True)
class TaskDecision:
    """What the user decided about a proposed change: accept it as proposed, or as edited
    (`text` in place of the proposal's), or reject it (`accept` False)."""

    proposal: TaskProposal
    accept: bool
    text: str | None = None


class TaskKeeper(Protocol):
    """Where the task state is read and saved: the session, which keeps it cached."""

    def task(self) -> TaskState: ...
    def save_task(self, task: TaskState) -> TaskState: ...


class TaskBook:
    """The task state of one session's conversation (`ChatSession.task_book`).

    Each change is stored at once; the session's next plan sends it. Raises TaskError with
    one line for a change that cannot be made (a step that is not there, no text).
    """

    def __init__(self, session: TaskKeeper) -> None:
        self._session = session

    @property
    def state(self) -> TaskState:
        return self._session.task()

    def set_goal(self, text: str) -> TaskState:
        """Set the goal ("" clears it)."""
        return self._session.save_task(self.state.with_goal(text))

    def add_step(self, text: str) -> TaskState:
        """Add a pending step after the others."""
        return self._session.save_task(self.state.with_step(text))

    def mark_done(self, number: int, done: bool = True) -> TaskState:
        """Mark step `number` (from 1) done, or pending again with `done` False."""
        return self._session.save_task(self.state.with_done(number, done))

    def remove_step(self, number: int) -> TaskState:
        """Remove step `number`; the later steps move up a number."""
        return self._session.save_task(self.state.without_step(number))

    def clear(self) -> TaskState:
        """Forget the whole task: goal and steps."""
        return self._session.save_task(TaskState())

    def apply(self, decisions: Sequence[TaskDecision]) -> tuple[TaskState, list[str]]:
        """Make the accepted changes in order, in one save; returns the task and a line for
        each change that no longer applied (the task changed since it was proposed)."""
        task = self.state
        skipped: list[str] = []
        for decision in decisions:
            if not decision.accept:
                continue
            proposal = decision.proposal
            if decision.text is not None:
                proposal = TaskProposal(
                    proposal.action, decision.text, proposal.step, proposal.message_id
                )
            try:
                task = proposal.applied_to(task)
            except TaskError as error:
                skipped.append(f"{proposal.describe()}: {error}")
        if task != self.state:
            task = self._session.save_task(task)
        return task, skipped
