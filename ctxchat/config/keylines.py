"""Which line of a TOML text each key is on: a best-effort index for error messages.

tomllib reports lines only for syntax errors, so a wrong value is located by scanning the
text for table headers and `key =` lines (dotted and quoted keys included). Keys inside
inline tables and arrays fall back to the line of the nearest key that is found, which for
an inline table is its own line.
"""

from __future__ import annotations

import json
import re

Key = tuple[str, ...]

_BARE = r"[A-Za-z0-9_-]+"
_BASIC = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL = r"'[^'\n]*'"
_PART = rf"(?:{_BARE}|{_BASIC}|{_LITERAL})"
_DOTTED = rf"{_PART}(?:[ \t]*\.[ \t]*{_PART})*"
_PART_RE = re.compile(_PART)
_TABLE = re.compile(rf"^[ \t]*\[[ \t]*({_DOTTED})[ \t]*\][ \t]*(?:#.*)?$")
_ARRAY_TABLE = re.compile(rf"^[ \t]*\[\[[ \t]*({_DOTTED})[ \t]*\]\][ \t]*(?:#.*)?$")
_ASSIGNMENT = re.compile(rf"^[ \t]*({_DOTTED})[ \t]*=(.*)$")
_BARE_RE = re.compile(rf"^{_BARE}$")


def _unquote(part: str) -> str:
    if part.startswith('"'):
        try:
            value: str = json.loads(part)
        except ValueError:  # a TOML-only escape such as \UXXXXXXXX
            return part[1:-1]
        return value
    if part.startswith("'"):
        return part[1:-1]
    return part


def split_key(dotted: str) -> Key:
    """`a."b.c".d` → ("a", "b.c", "d")."""
    return tuple(_unquote(match.group(0)) for match in _PART_RE.finditer(dotted))


def format_key(key: Key) -> str:
    """A key path as it would be written in TOML: bare parts plain, others quoted."""
    return ".".join(
        part if _BARE_RE.match(part) else json.dumps(part, ensure_ascii=False) for part in key
    )


class KeyLines:
    """Line numbers (1-based) of the tables and keys in a TOML text."""

    def __init__(self, text: str) -> None:
        self._lines: dict[Key, int] = {}
        table: Key = ()
        closing: str | None = None  # the delimiter of a multi-line string being skipped
        for number, line in enumerate(text.splitlines(), start=1):
            if closing is not None:
                if closing in line:
                    closing = None
                continue
            header = _ARRAY_TABLE.match(line) or _TABLE.match(line)
            if header:
                table = split_key(header.group(1))
                self._record(table, number)
                continue
            assignment = _ASSIGNMENT.match(line)
            if not assignment:
                continue
            key = table + split_key(assignment.group(1))
            for end in range(len(table) + 1, len(key) + 1):
                self._record(key[:end], number)
            closing = _opened_multiline(assignment.group(2))

    def _record(self, key: Key, number: int) -> None:
        self._lines.setdefault(key, number)

    def line_of(self, key: Key) -> int | None:
        """The line of `key`, else of its nearest ancestor that was found, else None."""
        for end in range(len(key), 0, -1):
            found = self._lines.get(key[:end])
            if found is not None:
                return found
        return None


def _opened_multiline(value: str) -> str | None:
    """The delimiter when a value starts a multi-line string it does not close on this line."""
    stripped = value.lstrip()
    for delimiter in ('"""', "'''"):
        if stripped.startswith(delimiter) and stripped.count(delimiter) % 2 == 1:
            return delimiter
    return None
