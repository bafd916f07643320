"""Where the words searched for are in a message: a cleaned line around them (the switcher),
the span of the first one as a text selection (the find bar)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text
from textual.geometry import Offset
from textual.selection import Selection
from textual.widget import Widget

from ctxchat.store.search import find_words
from ctxchat.tui.text import clean

LEAD = 24
"""Characters shown before the first hit, so it reads in its sentence."""
LENGTH = 240
"""Characters kept in all: more than a line; the line is cut to its width when drawn."""
HIT_STYLE = "reverse"


def word_pattern(words: Sequence[str]) -> re.Pattern[str] | None:
    """Whole words starting with any of `words` (as the index finds them), ignoring case."""
    if not words:
        return None
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![^\W_])(?:{alternatives})[^\W_]*", re.IGNORECASE)


def one_line(text: str) -> str:
    """`text` cleaned for display, every run of white space (new lines too) one space."""
    return " ".join(clean(text).split())


def snippet(text: str, query: str) -> Text:
    """A line of `text` from a little before the first word of `query` it holds, those words
    in reverse video; never markup, never an escape sequence, never more than one line."""
    line = one_line(text)
    pattern = word_pattern(find_words(query))
    found = pattern.search(line) if pattern is not None else None
    start = 0
    if found is not None and found.start() > LEAD:
        # Start at a word boundary, so the line does not begin with half a word.
        start = line.rfind(" ", 0, found.start() - LEAD) + 1
    shown = ("…" if start else "") + line[start : start + LENGTH]
    result = Text(shown, no_wrap=True, overflow="ellipsis", end="")
    if pattern is not None:
        result.highlight_regex(pattern, style=HIT_STYLE)
    return result


def first_hit(widget: Widget, query: str) -> tuple[Widget, Selection] | None:
    """Where `widget`'s text first holds a word of `query`: the innermost widget drawing
    that text and the span as a text selection (Textual's own highlight), or None."""
    pattern = word_pattern(find_words(query))
    if pattern is None:
        return None
    for drawn in [widget, *widget.query("*")]:
        if drawn.children:
            continue  # a container: its text is its children's
        text = drawn.get_selection(Selection(None, None))
        if text is None:
            continue
        for line_number, line in enumerate(text[0].splitlines()):
            found = pattern.search(line)
            if found is not None:
                start, end = Offset(found.start(), line_number), Offset(found.end(), line_number)
                return drawn, Selection(start, end)
    return None
