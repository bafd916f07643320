"""A number with its noun, singular or plural: "1 entry", "2,048 entries"."""

from __future__ import annotations


def counted(count: int, one: str, many: str | None = None) -> str:
    """`count` (with thousands separators) and `one` or `many` (`one` + "s" unless given)."""
    noun = one if count == 1 else (many if many is not None else f"{one}s")
    return f"{count:,} {noun}"
