"""The find bar over the conversation: a query box, how many messages hold it, which is shown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from ctxchat.tui.actions import bindings_for
from ctxchat.tui.text import plain

NEXT = 1
"""A step to the next hit: the next older message holding the words (hits count from the
newest, where the user is)."""
PREVIOUS = -1

Finder = Callable[[str], list[int]]
"""The ids of the messages holding the words, newest first."""


def nothing_found(query: str) -> list[int]:
    return []


@dataclass(frozen=True, slots=True)
class FindPlace:
    """The hit shown: for which words, which message."""

    query: str
    message_id: int


def count_line(position: int | None, total: int) -> str:
    """ "no match", "17 matches" (none shown yet) or "3 of 17" (the third newest is shown)."""
    if total == 0:
        return "no match"
    if position is None:
        return "1 match" if total == 1 else f"{total:,} matches"
    return f"{position:,} of {total:,}"


class FindBar(Horizontal):
    """Type words to find in the conversation; enter / F3 / ↑ next (up), shift+enter /
    shift+F3 / ↓ previous (down), Esc closes. Typing only ever reaches the box.

    It owns its place (`place`: the hit shown) in the conversation it finds in (`look_in`),
    counts the hits as the words change and steps through them, and asks for each hit it
    steps to to be shown (`Found`).
    """

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

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("FindBar")

    @dataclass
    class Found(Message):
        """Show message `message_id`, the hit stepped to, holding the words `query`."""

        message_id: int
        query: str

    @dataclass
    class Closed(Message):
        """The user closed the bar."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._finder: Finder = nothing_found
        self.place: FindPlace | None = None
        """The hit shown, if one is."""

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

    def show_count(self, position: int | None, total: int) -> None:
        """Say how many messages hold the words, and which of them is shown."""
        counter = self.query_one("#find-count", Static)
        counter.update(plain(count_line(position, total)) if self.query_text.strip() else "")
        counter.set_class(total == 0 and bool(self.query_text.strip()), "-none")

    def look_in(self, finder: Finder) -> None:
        """Find with `finder` from now on (another conversation is shown, or the same one
        drawn afresh): no hit is shown, and an open bar counts again."""
        self._finder = finder
        self.place = None
        if self.is_open:
            self.show_count(None, len(finder(self.query_text)))

    def open(self) -> None:
        """Show the bar with the box focused (its words selected, to type new ones), and
        count their hits."""
        self.add_class("-open")
        box = self.query_one("#find-query", Input)
        box.focus()
        box.select_all()
        self.place = None
        self.show_count(None, len(self._finder(self.query_text)))

    @on(Input.Changed, "#find-query")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.place = None
        self.show_count(None, len(self._finder(event.value)))

    @on(Input.Submitted, "#find-query")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_step(NEXT)

    def action_step(self, step: int) -> None:
        """Step to the next (`NEXT`) or previous (`PREVIOUS`) hit and ask for it to be shown."""
        query = self.query_text
        if not query.strip():
            return
        # Read again on every step: messages may have come or gone since the last one.
        hits = self._finder(query)
        if not hits:
            self.place = None
            self.show_count(None, 0)
            return
        place = self.place
        if place is not None and place.query == query and place.message_id in hits:
            index = (hits.index(place.message_id) + step) % len(hits)
        else:  # the first step, or the hit shown is gone: from the newest (or the oldest)
            index = 0 if step > 0 else len(hits) - 1
        self.place = FindPlace(query, hits[index])
        self.show_count(index + 1, len(hits))
        self.post_message(self.Found(hits[index], query))

    def action_close(self) -> None:
        self.remove_class("-open")
        self.place = None
        self.post_message(self.Closed())
