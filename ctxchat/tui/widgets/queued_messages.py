"""QueuedMessages: the messages sent while a reply streams, under it, each waiting its turn."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from ctxchat.safe_text import controls_shown
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.text import content, plain


def row_content(position: int, text: str) -> Text:
    """`queued · 2  the text`: the text on one line, as typed (never markup; a line break
    shows as ⏎, a control character as its symbol)."""
    one_line = controls_shown(text.strip("\n")).replace("\n", " ⏎ ")
    return Text.assemble(plain(f"queued · {position}  ", "dim"), plain(one_line), end="")


class QueuedRow(Static):
    """One queued message; focused, it can be edited (taken back into the composer) or
    cancelled."""

    DEFAULT_CSS = """
    QueuedRow {
        height: 1;
        padding: 0 2;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &:focus {
            background: $primary 30%;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("QueuedRow")

    def __init__(self, number: int, position: int, text: str) -> None:
        super().__init__(row_content(position, text), markup=False)
        self.can_focus = True
        self.number = number
        self.text = text

    def action_edit(self) -> None:
        self.post_message(QueuedMessages.EditRequested(self.number))

    def action_cancel(self) -> None:
        self.post_message(QueuedMessages.CancelRequested(self.number))


class QueuedMessages(VerticalScroll, can_focus=False):
    """The messages waiting in the conversation on screen, in the order they go; a line
    above them when they are held (the reply before them failed or was stopped)."""

    DEFAULT_CSS = """
    QueuedMessages {
        height: auto;
        max-height: 7;
        display: none;
        &.-shown {
            display: block;
        }
        #queued-held {
            height: auto;
            padding: 0 2;
            color: $warning;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawing = asyncio.Lock()

    @dataclass
    class EditRequested(Message):
        """Take queued message `number` back into the composer."""

        number: int

    @dataclass
    class CancelRequested(Message):
        """Cancel queued message `number`."""

        number: int

    async def show(self, queued: Sequence[tuple[int, str]], *, held: bool) -> None:
        """Draw `queued` (number, text), oldest first; `held` says they wait for the user.
        The rows still queued stay as they are (a focused one keeps focus); a row that goes
        hands focus on as Textual does, to the next one."""
        async with self._drawing:  # one drawing at a time, in the order asked
            await self._show(queued, held=held)

    async def _show(self, queued: Sequence[tuple[int, str]], *, held: bool) -> None:
        rows = {row.number: row for row in self.query(QueuedRow).results(QueuedRow)}
        wanted = {number for number, _ in queued}
        await self.remove_children([row for number, row in rows.items() if number not in wanted])
        for position, (number, text) in enumerate(queued, start=1):
            row = rows.get(number)
            if row is None:
                await self.mount(QueuedRow(number, position, text))
            else:
                row.update(row_content(position, text))
        notes = list(self.query("#queued-held"))
        if held and queued and not notes:
            note = content("Held: the reply before them did not finish. Enter sends them.")
            await self.mount(Static(note, id="queued-held"), before=0)
        elif not (held and queued):
            await self.remove_children(notes)
        self.set_class(bool(queued), "-shown")
