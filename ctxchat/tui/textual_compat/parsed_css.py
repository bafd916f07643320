"""Textual's parsed stylesheets, kept between runs as the methods of dataclasses are
(`ctxchat/cli/dataclass_code.py`).

Textual parses the app's CSS and every widget's `DEFAULT_CSS` on each start: about 17,000
characters in 32 sources before the first frame, 13-22 ms of it (4.5 ms for an app of
three Textual widgets). Here each source's rules are kept in the cache directory, pickled,
by everything its parse reads (the CSS, where it is from, its scope, the theme's
variables, whether it is a widget's defaults, its tie-breaker), and read back on the next
start instead of parsed again: about 1.6 ms for all of them. A source with a mistake is
parsed every time, so Textual reports it as before; a cache file that cannot be read, or
was written by another build of Textual, is a cache that is empty.

The one point reached is the `parse` that `textual.css.stylesheet` calls (a global name of
that module).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import pickle
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual.css import parse as parse_module
from textual.css import styles as styles_module
from textual.css import stylesheet as stylesheet_module
from textual.css.model import RuleSet
from textual.css.tokenizer import Token

from ctxchat.cli.dataclass_code import read_kept, write_kept

__all__ = ["ParsedCss", "keep_parsed_css"]

LARGEST = 4 * 1024 * 1024
"""Bytes: a file past this (the rules of CSS that changed, of themes tried) is written again
with this run's sources only."""

_PARSE = parse_module.parse
"""Textual's own parse, which `textual.css.stylesheet` calls."""

Key = tuple[Any, ...]


class ParsedCss:
    """Pickled rules by everything their parse reads, read from `path` and written back
    once at exit if a source was parsed this run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.used: set[Key] = set()
        self.parsed = 0
        self._tokens: dict[str, list[Token]] | None = None
        self._tokens_key: tuple[Any, ...] = ()
        # Any damage, or another Textual's classes, counts as an empty cache.
        self.rules: dict[Key, bytes]
        self.rules, self.size = read_kept(path, pickle.loads, tuple, bytes, (Exception,))

    def _variables_key(self, variable_tokens: dict[str, list[Token]] | None) -> tuple[Any, ...]:
        """The theme's variables as the parse reads them (one stylesheet hands the same
        dict to each of its parses: worked out once for it)."""
        if not variable_tokens:
            return ()
        if variable_tokens is not self._tokens:
            self._tokens = variable_tokens
            self._tokens_key = tuple(
                (name, tuple((token.name, token.value) for token in tokens))
                for name, tokens in variable_tokens.items()
            )
        return self._tokens_key

    def parse(
        self,
        scope: str,
        css: str,
        read_from: tuple[str, str],
        variables: dict[str, str] | None = None,
        variable_tokens: dict[str, list[Token]] | None = None,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
    ) -> Iterable[RuleSet]:
        """Textual's `parse`, with a source's rules read from the cache (or parsed and
        kept). Each call gets rules of its own: a stylesheet parsed again (another theme)
        never shares them with the one before."""
        if variables is not None:  # not how a stylesheet calls it: parsed as Textual would
            return _PARSE(
                scope, css, read_from, variables, variable_tokens, is_default_rules, tie_breaker
            )
        key = (
            scope,
            css,
            read_from,
            self._variables_key(variable_tokens),
            is_default_rules,
            tie_breaker,
        )
        kept = self.rules.get(key)
        if kept is not None:
            with contextlib.suppress(Exception):
                rules: list[RuleSet] = pickle.loads(kept)
                self.used.add(key)
                return rules
        rules = list(
            _PARSE(scope, css, read_from, None, variable_tokens, is_default_rules, tie_breaker)
        )
        if not any(rule.errors for rule in rules):
            with contextlib.suppress(Exception):  # a rule that cannot be pickled is parsed
                self.rules[key] = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
                self.used.add(key)
                self.parsed += 1
        return rules

    def save(self) -> None:
        """Write the cache if this run parsed a source (see `write_kept`)."""
        if self.parsed:
            write_kept(self.path, self.rules, self.used, self.size > LARGEST, _dumps)


def _dumps(rules: dict[Key, bytes]) -> bytes:
    return pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)


def textual_build() -> str:
    """What tells this Textual's CSS classes from another's: the size and time of the
    modules that define and parse them (Textual's version needs `importlib.metadata`,
    which costs more than the cache saves)."""
    stamps = []
    for module in (parse_module, stylesheet_module, styles_module):
        stat = os.stat(str(module.__file__))
        stamps.append(f"{module.__name__}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(stamps).encode()).hexdigest()[:16]


def cache_file(directory: Path) -> Path:
    """The file for this interpreter and this build of Textual."""
    tag = sys.implementation.cache_tag or sys.implementation.name
    return directory / f"textual-css.{tag}.{textual_build()}.pickle"


def keep_parsed_css(directory: Path) -> ParsedCss:
    """Serve Textual's parsed stylesheets from (and into) the cache in `directory` for the
    rest of the process; the cache is written back at exit. Once per process: a second
    call returns the cache already in use."""
    serving = getattr(vars(stylesheet_module).get("parse"), "__self__", None)
    if isinstance(serving, ParsedCss):
        return serving
    cache = ParsedCss(cache_file(directory))
    setattr(stylesheet_module, "parse", cache.parse)  # noqa: B010 (not a name it exports)
    atexit.register(cache.save)
    return cache
