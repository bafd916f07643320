"""Reading another tool's data by its documented shape: each value checked where it is read,
and a value of the wrong kind named by its place (`conversation 3: mapping: expected an
object, found a list`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar

from ctxchat.store.errors import StoreError

T = TypeVar("T")

_HEADER = re.compile(r"(conversation|chat) \d+")

_KINDS: dict[type, str] = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
}


class HistoryFormatError(StoreError):
    """The file is not the history it was taken for, or is damaged: one line naming the first
    place that is wrong. Nothing of the file is imported."""


class NotJson(HistoryFormatError):
    """The file is not JSON text at all (nor an SQLite database)."""


def found(value: object) -> str:
    """What a value is, in words: `found a list`, `found null`."""
    if value is None:
        return "found null"
    for kind, name in _KINDS.items():
        if type(value) is kind:
            return f"found {name}"
    return f"found {type(value).__name__}"


def wrong(place: str, expected: str, value: object) -> HistoryFormatError:
    return HistoryFormatError(f"{place}: expected {expected}, {found(value)}")


def child(place: str, key: str) -> str:
    """The place of `key` inside `place`: `… .content.parts`, and `conversation 3 “Trip”:
    mapping` after a conversation's name."""
    if _HEADER.fullmatch(place) or place.endswith("”"):
        return f"{place}: {key}"
    return f"{place}.{key}"


def need(data: Mapping[str, Any], key: str, kind: type[T], place: str) -> T:
    """`data[key]`, which must be there and of `kind`."""
    if key not in data:
        raise HistoryFormatError(f"{place}: {key!r} is missing")
    return check(data[key], kind, child(place, key))


def maybe(data: Mapping[str, Any], key: str, kind: type[T], place: str) -> T | None:
    """`data[key]` if it is there and not null; of `kind` when it is."""
    value = data.get(key)
    return None if value is None else check(value, kind, child(place, key))


def check(value: object, kind: type[T], place: str) -> T:
    if kind is float and type(value) in (int, float):
        return value  # type: ignore[return-value]
    if type(value) is not kind:
        raise wrong(place, _KINDS.get(kind, kind.__name__), value)
    return value


def text_of(value: object, place: str) -> str:
    """A text value that may also be null (empty)."""
    if value is None:
        return ""
    return check(value, str, place)


def epoch(value: object, place: str) -> float | None:
    """A time as seconds since the epoch, from a number (seconds, or milliseconds when it is
    too large for seconds) or an ISO 8601 text (`2024-03-01T12:00:00Z`; without a zone, UTC);
    None when there is none."""
    if value is None or value == "":
        return None
    if type(value) in (int, float):
        seconds = float(value)  # type: ignore[arg-type]
        if not math.isfinite(seconds):
            raise wrong(place, "a time", value)
        return seconds / 1000 if seconds > 1e11 else seconds
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise HistoryFormatError(f"{place}: {value[:40]!r} is not a time") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    raise wrong(place, "a time", value)


def quoted(title: str) -> str:
    """A title as it appears in a place: `“Trip to Oslo”`, cut when long."""
    short = " ".join(title.split())
    return f"“{short[:40]}…”" if len(short) > 40 else f"“{short}”"
