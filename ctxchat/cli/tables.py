"""Rich output for the command line; every cell is plain text, never markup."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ctxchat.safe_text import clean


def console() -> Console:
    # Markup and emoji codes off: titles and messages are shown exactly as they are.
    return Console(file=sys.stdout, markup=False, emoji=False, highlight=False, soft_wrap=False)


def table(*columns: str, title: str | None = None) -> Table:
    grid = Table(title=title, show_lines=False, header_style="bold")
    for column in columns:
        justify = (
            "right" if column in ("id", "tokens", "messages", "budget", "share", "imp") else "left"
        )
        grid.add_column(column, justify=justify)  # type: ignore[arg-type]
    return grid


def cell(text: str, style: str = "") -> Text:
    return Text(clean(text), style=style)
