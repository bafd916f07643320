"""Recall across conversations: which other conversations recall may search besides the
request's own (`[recall] across`, switched for the run from the command palette)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Others:
    """The other conversations recall searches: those of project `project_id`, or every
    one when it is None."""

    project_id: int | None


class RecallAcross(StrEnum):
    """Where recall looks besides the conversation itself."""

    PROJECT = "project"
    """The other conversations of its project; none outside a project."""
    ALL = "all"
    """Every other conversation."""
    OFF = "off"
    """Only the conversation itself."""

    def following(self) -> RecallAcross:
        """The next choice the palette switches to: project → all → off → project."""
        order = list(RecallAcross)
        return order[(order.index(self) + 1) % len(order)]

    def searches(self, project_id: int | None) -> bool:
        """Whether recall searches other conversations for one in project `project_id`."""
        return self is RecallAcross.ALL or (self is RecallAcross.PROJECT and project_id is not None)

    def others(self, project_id: int | None) -> Others | None:
        """The other conversations searched for one in project `project_id` (None: none)."""
        if not self.searches(project_id):
            return None
        return Others(project_id if self is RecallAcross.PROJECT else None)

    def describe(self) -> str:
        """What the choice does, in words a user reads (the palette, the notice)."""
        if self is RecallAcross.PROJECT:
            return "recall also searches the other conversations of this one's project"
        if self is RecallAcross.ALL:
            return "recall also searches every other conversation"
        return "recall searches this conversation only"
