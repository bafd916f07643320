"""Display-safe text: control sequences neutralised, never markup, numbers written for people."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from ctxchat.safe_text import clean

__all__ = ["clean", "content", "plain", "signed", "tokens"]


def plain(text: str, style: str = "") -> Text:
    """A Rich `Text` of `text`, cleaned and never read as markup."""
    return Text(clean(text), style=style, end="")


def content(text: str, style: str = "") -> Content:
    """A Textual `Content` of `text`, cleaned and never read as markup.

    `style` may name theme variables (`"$layer-memory"`): Textual resolves them when drawing.
    """
    return Content.styled(clean(text), style) if style else Content(clean(text))


def tokens(count: int) -> str:
    """A token count with thousands separators: `123904` → `123,904`."""
    return f"{count:,}"


def signed(count: int | float, precision: int = 0) -> str:
    """A signed number with a real minus sign: `+16`, `−41`, `0`, `+1.3` (precision 1)."""
    shown = f"{abs(count):,.{precision}f}"
    if float(shown.replace(",", "")) == 0:
        return shown
    return ("+" if count > 0 else "\u2212") + shown
