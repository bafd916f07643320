"""Rich output for the command line; every cell is plain text, never markup."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from ctxchat.safe_text import clean


class _CleaningConsole(Console):
    """A console that cleans every piece of text it renders: text that reached a renderable
    without `cell` (a note quoting a server's model ids) still cannot act on the terminal.
    Text cleaned before layout (`cell`) keeps the columns exact; this is the net under it."""

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            yield segment if segment.control else Segment(clean(segment.text), segment.style)


def console() -> Console:
    # Markup and emoji codes off: titles and messages are shown exactly as they are.
    return _CleaningConsole(
        file=sys.stdout, markup=False, emoji=False, highlight=False, soft_wrap=False
    )


def table(*columns: str, title: str | None = None) -> Table:
    grid = Table(title=title, show_lines=False, header_style="bold")
    for column in columns:
        justify = (
            "right" if column in ("id", "tokens", "messages", "budget", "share", "imp") else "left"
        )
        grid.add_column(column, justify=justify)  # type: ignore[arg-type]
    return grid


def cell(text: str, style: str = "") -> Text:
    """`text` as a Rich `Text`, cleaned: for cells, notes, anything from outside."""
    return Text(clean(text), style=style)
