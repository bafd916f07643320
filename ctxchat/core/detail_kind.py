"""What sort of detail a text holds: the name of its kind, apart from the patterns that find
details (`core/details.py`), which a summary's stored report of lost details does not need
until it looks for them again."""

from __future__ import annotations

from enum import StrEnum


class DetailKind(StrEnum):
    """What sort of detail a text holds."""

    NUMBER = "number"
    DATE = "date"
    NAME = "name"
    PATH = "path"
    URL = "url"
    COMMAND = "command"
    IDENTIFIER = "identifier"
    DECISION = "decision"
    CONSTRAINT = "constraint"
    TOPIC = "topic"
    """A subject several folded turns talk about (found by `core/summary_loss.py`)."""
