"""The config's theme and `[keys]` checked against what the app offers, reported as config errors.

Which themes and binding ids exist is only known where the app's parts are loaded (the TUI,
`config show`), so these problems are found there, and are warnings: the app starts anyway
with the default theme and without the bad bindings. Each reads like any other config error:
`file:line: key: problem; did you mean "…"?`.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ctxchat.config.errors import ConfigError
from ctxchat.config.keylines import Key, KeyLines, format_key

_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
# Named keys as Textual writes them; any other key is one character or a character's
# Unicode name in lower case with underscores ("plus", "full_stop").
_NAMED_KEYS = frozenset(
    {
        *("backspace", "delete", "down", "end", "enter", "escape", "home", "insert", "left"),
        *("pagedown", "pageup", "return", "right", "space", "tab", "up"),
        *(f"f{number}" for number in range(1, 25)),
        # Textual's short names for some characters (textual.keys.KEY_NAME_REPLACEMENTS).
        *("slash", "backslash", "at", "minus", "plus", "underscore", "newline"),
    }
)

# Textual's short names for printable characters (the rest are one character or its name).
_PRINTABLE_NAMES = frozenset({"space", "slash", "backslash", "at", "minus", "plus", "underscore"})

_MAIN_SCREEN = (
    *("composer", "message", "memory", "mode", "reply", "context", "conversation", "model"),
    "view",
)
_WHERE_TYPING_GOES: dict[str, str] = {
    # The main screen's panels send typing to the composer, which takes it as text.
    **dict.fromkeys(_MAIN_SCREEN, "a key typed on the main screen goes to the composer"),
    "find": "the find bar takes typed keys as text",
    "conversations": "a key typed in the conversation switcher goes to its search",
}
"""Binding namespaces (the id before the dot) where a bare printable key is typing, so a
binding on one never fires."""
_TAKES_TYPING = frozenset({"app.quit", "memory.focus"})
"""Priority bindings: on a printable key they would fire instead of the key being typed."""


@dataclass(frozen=True, slots=True)
class NameProblems:
    """What is wrong with the theme and the key remaps, and what to leave out because of it."""

    lines: list[str] = field(default_factory=list)
    """One config-error line per problem."""
    bad_theme: bool = False
    """The configured theme does not exist: use the default."""
    bad_bindings: frozenset[str] = frozenset()
    """Binding ids whose remap cannot be applied."""


def key_problem(keys: str) -> str | None:
    """Why `keys` ("ctrl+o", "f5,ctrl+s") is not a key list Textual can bind, or None."""
    for written in keys.split(","):
        key = written.strip()
        *modifiers, name = key.split("+") if key != "+" else ["+"]
        if not name:
            return f'"{key}" ends without a key after "+"'
        unknown = [m for m in modifiers if m not in _MODIFIERS]
        if unknown:
            return f'"{unknown[0]}" in "{key}" is not a modifier (ctrl, shift, alt, meta, super)'
        if not _is_key_name(name):
            close = difflib.get_close_matches(name, sorted(_NAMED_KEYS), n=1)
            hint = f'; did you mean "{close[0]}"?' if close else ""
            return f'"{name}" in "{key}" is not a key{hint}'
    return None


def typing_problem(binding: str, keys: str) -> str | None:
    """Why `keys` cannot be the keys of `binding` because one of them is typing, or None."""
    typed = next((key.strip() for key in keys.split(",") if _is_printable(key.strip())), None)
    if typed is None:
        return None
    if binding in _TAKES_TYPING:
        return f'"{typed}" would fire instead of being typed, everywhere; use a ctrl+ or F key'
    where = _WHERE_TYPING_GOES.get(binding.partition(".")[0])
    if where is None:
        return None
    return f'"{typed}" would never fire: {where}; use a ctrl+ or F key'


def _is_printable(key: str) -> bool:
    """A key typing sends (a letter, "space", "full_stop"), not a chord or a named key."""
    if key in _PRINTABLE_NAMES or (len(key) == 1 and key.isprintable()):
        return True
    if "+" in key or key in _NAMED_KEYS:
        return False
    try:
        return unicodedata.lookup(key.replace("_", " ")).isprintable()
    except KeyError:
        return False


def _is_key_name(name: str) -> bool:
    if len(name) == 1 or name in _NAMED_KEYS:
        return True
    try:
        unicodedata.lookup(name.replace("_", " "))
    except KeyError:
        return False
    return True


def check_names(
    theme: str,
    keymap: Mapping[str, str],
    path: Path | None,
    *,
    themes: Collection[str],
    bindings: Collection[str],
) -> NameProblems:
    """Problems with `theme` and `keymap` (as read from the config file at `path`)."""
    lines = _KeyLineFinder(path)
    found: list[str] = []
    bad_theme = theme not in themes
    if bad_theme:
        found.append(lines.error(("theme",), _unknown(f"no theme called {theme!r}", theme, themes)))
    bad: set[str] = set()
    for binding, keys in keymap.items():
        at: Key = ("keys", binding)
        problem = (
            _unknown("no key binding has this id", binding, bindings)
            if binding not in bindings
            else key_problem(keys) or typing_problem(binding, keys)
        )
        if problem is not None:
            bad.add(binding)
            found.append(lines.error(at, problem))
    return NameProblems(found, bad_theme, frozenset(bad))


def _unknown(problem: str, name: str, known: Collection[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    return problem + (f'; did you mean "{close[0]}"?' if close else "")


class _KeyLineFinder:
    """Lines of keys in the config file, read again: settings keep no copy of the text."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        text = ""
        if path is not None:
            try:
                text = path.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                text = ""  # the problem is still worth telling, without its line
        self._lines = KeyLines(text)

    def error(self, key: Key, problem: str) -> str:
        line = self._lines.line_of(key) if self._path is not None else None
        return str(ConfigError(problem, path=self._path, line=line, key=format_key(key)))
