"""How far apart two colours look on a terminal: the tests of what must stand out."""

from __future__ import annotations

import math

from rich.color import ColorSystem
from textual.color import Color


def apart(one: Color, other: Color, system: ColorSystem | None) -> float:
    """How far apart two colours look (RGB distance), as a terminal of `system` shows them
    (None: truecolor)."""
    if system is None:
        return math.dist(one.rgb, other.rgb)
    first = one.rich_color.downgrade(system).get_truecolor()
    second = other.rich_color.downgrade(system).get_truecolor()
    return math.dist(tuple(first), tuple(second))
