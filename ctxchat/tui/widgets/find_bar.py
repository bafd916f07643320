"""The find bar over the conversation: a query box, how many messages hold it, which is shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from ctxchat.tui.text import plain

NEXT = 1
"""A step to the next hit: the next older message holding the words (hits count from the
newest, where the user is)."""
PREVIOUS = -1


def count_line(position: int | None, total: int) -> str:
    """ "no match", "17 matches" (none shown yet) or "3 of 17" (the third newest is shown)."""
    if total == 0:
        return "no match"
    if position is None:
        return "1 match" if total == 1 else f"{total:,} matches"
    return f"{position:,} of {total:,}"


class FindBar(Horizontal):
    """Type words to find in the conversation; enter / F3 / ↑ next (up), shift+enter /
    shift+F3 / ↓ previous (down), Esc closes. Typing only ever reaches the box."""

    DEFAULT_CSS = """
    FindBar {
        height: auto;
        display: none;
        padding: 0 1;
        background: $boost;
        &.-open {
            display: block;
        }
        #find-query {
            width: 1fr;
            height: 1;
            border: none;
            padding: 0 1;
        }
        #find-count {
            width: auto;
            min-width: 12;
            padding: 0 1;
            color: $text-muted;
        }
        #find-count.-none {
            color: $text-warning;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "up,f3",
            "step(1)",
            "Next",
            key_display="↑ f3",
            id="find.next",
            tooltip="Go to the next message up (older) holding the words; enter does too",
        ),
        # Most terminals send shift+enter as enter, and shift+F3 as a sequence Textual reads
        # as a cursor position report (F15 in some): ↓ always works.
        Binding(
            "down,shift+enter,shift+f3,f15",
            "step(-1)",
            "Previous",
            key_display="↓",
            id="find.previous",
            tooltip="Go to the previous message, down (newer), holding the words",
        ),
        Binding(
            "escape",
            "close",
            "Close",
            id="find.close",
            tooltip="Close the find bar and go back to the composer",
        ),
    ]

    @dataclass
    class QueryChanged(Message):
        """The words to find changed (nothing is shown yet)."""

        query: str

    @dataclass
    class StepRequested(Message):
        """Show the next (`NEXT`) or previous (`PREVIOUS`) hit of `query`."""

        query: str
        step: int

    @dataclass
    class Closed(Message):
        """The user closed the bar."""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Find in this conversation…", id="find-query")
        yield Static("", id="find-count")

    @property
    def query_text(self) -> str:
        return self.query_one("#find-query", Input).value

    @property
    def count_text(self) -> str:
        return str(self.query_one("#find-count", Static).render())

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        """Show the bar with the box focused (its words selected, to type new ones)."""
        self.add_class("-open")
        box = self.query_one("#find-query", Input)
        box.focus()
        box.select_all()

    def show_count(self, position: int | None, total: int) -> None:
        """Say how many messages hold the words, and which of them is shown."""
        counter = self.query_one("#find-count", Static)
        counter.update(plain(count_line(position, total)) if self.query_text.strip() else "")
        counter.set_class(total == 0 and bool(self.query_text.strip()), "-none")

    @on(Input.Changed, "#find-query")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.QueryChanged(event.value))

    @on(Input.Submitted, "#find-query")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(NEXT)

    def action_step(self, step: int) -> None:
        if self.query_text.strip():
            self.post_message(self.StepRequested(self.query_text, step))

    def action_close(self) -> None:
        self.remove_class("-open")
        self.post_message(self.Closed())
