"""Typed reads from parsed TOML tables, each failure a ConfigError naming its line and key."""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from ctxchat.config.errors import ConfigError
from ctxchat.config.keylines import Key, KeyLines, format_key
from ctxchat.redaction import redact

E = TypeVar("E", bound=StrEnum)

WHOLE_NUMBER = "a whole number ≥ 0"
# Long values are cut in messages: the point is to recognise the value, not to reprint it.
_MAX_SHOWN = 60


def describe(value: object, *, secret: bool = False) -> str:
    """A value as a message shows it: TOML-like, shortened; a secret only by its kind."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        if secret:
            return "a string"
        shown = json.dumps(value, ensure_ascii=False)
        return shown if len(shown) <= _MAX_SHOWN else shown[: _MAX_SHOWN - 2] + '…"'
    if secret:
        return "a number" if isinstance(value, int | float) else "a date or time"
    if isinstance(value, int | float):
        return repr(value)
    return f"the date/time {value}"


class TableReader:
    """Reads the keys of one config file, recording which settings the file set."""

    def __init__(self, path: Path | None, text: str, secrets: Iterable[str]) -> None:
        self.path = path
        self._lines = KeyLines(text)
        self._secrets = [s for s in secrets if s]
        self.from_file: set[str] = set()
        """Dotted keys the file set (for `config show`'s sources)."""

    def error(self, key: Key, problem: str) -> ConfigError:
        """A ConfigError at `key`'s line (or its table's), with every known secret redacted."""
        return ConfigError(
            redact(problem, self._secrets),
            path=self.path,
            line=self._lines.line_of(key),
            key=redact(format_key(key), self._secrets) if key else None,
        )

    def expected(self, key: Key, what: str, value: object, *, secret: bool = False) -> ConfigError:
        return self.error(key, f"expected {what}, got {describe(value, secret=secret)}")

    def check_keys(self, table: Mapping[str, object], at: Key, known: Sequence[str]) -> None:
        """Unknown keys are errors, so a typo never passes silently."""
        for name in table:
            if name in known:
                continue
            close = difflib.get_close_matches(name, known, n=1)
            hint = f'; did you mean "{close[0]}"?' if close else ""
            listed = ", ".join(known)
            raise self.error((*at, name), f"unknown key{hint} (known here: {listed})")

    def mark(self, key: Key) -> None:
        self.from_file.add(".".join(key))

    def table(
        self, parent: Mapping[str, object], at: Key, *, like: str | None = None
    ) -> dict[str, object]:
        """The sub-table `at[-1]` of `parent`, empty when absent."""
        value = parent.get(at[-1])
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.expected(at, f"a table, like {like or f'[{format_key(at)}]'}", value)
        return value

    def string(
        self,
        table: Mapping[str, object],
        at: Key,
        default: str,
        *,
        what: str = "a string in quotes",
        secret: bool = False,
    ) -> str:
        value = table.get(at[-1])
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.expected(at, what, value, secret=secret)
        self.mark(at)
        return value

    def required_string(self, table: Mapping[str, object], at: Key, what: str) -> str:
        if at[-1] not in table:
            raise self.error(at, f"missing: expected {what}")
        value = self.string(table, at, "", what=what)
        if not value.strip():
            raise self.expected(at, what, value)
        return value

    def optional_string(
        self,
        table: Mapping[str, object],
        at: Key,
        *,
        what: str = "a string in quotes",
        secret: bool = False,
    ) -> str | None:
        """A string where "" (or leaving the key out) means none."""
        return self.string(table, at, "", what=what, secret=secret) or None

    def integer(
        self, table: Mapping[str, object], at: Key, default: int, what: str = WHOLE_NUMBER
    ) -> int:
        value = table.get(at[-1])
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.expected(at, what, value)
        self.mark(at)
        return value

    def boolean(self, table: Mapping[str, object], at: Key, default: bool) -> bool:
        value = table.get(at[-1])
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.expected(at, "true or false", value)
        self.mark(at)
        return value

    def number(self, table: Mapping[str, object], at: Key, default: float, what: str) -> float:
        value = table.get(at[-1])
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise self.expected(at, what, value)
        self.mark(at)
        return float(value)

    def choice(self, table: Mapping[str, object], at: Key, default: E) -> E:
        value = table.get(at[-1])
        if value is None:
            return default
        allowed = [member.value for member in type(default)]
        if isinstance(value, str) and value in allowed:
            self.mark(at)
            return type(default)(value)
        listed = ", ".join(f'"{name}"' for name in allowed)
        raise self.expected(at, f"one of {listed}", value)
