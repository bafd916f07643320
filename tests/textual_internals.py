"""The tests' own uses of Textual internals, in one place (the app's are in
`ctxchat/tui/textual_compat/`; `tests/tui_widgets/test_textual_compat.py` checks both)."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.strip import Strip


def drawn_rows(screen: Screen[Any]) -> list[Strip]:
    """The rows `screen` draws now, cell by cell, as its compositor renders them: Textual
    offers no public way to read a frame's cells (a screenshot is an SVG)."""
    return list(screen._compositor.render_strips())
