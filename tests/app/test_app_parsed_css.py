"""The app's stylesheets are read back from the cache on the next start instead of parsed
again, and the app looks exactly as it does with Textual's own parse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.css import stylesheet as stylesheet_module
from textual.css.model import RuleSet
from textual.layout import Layout

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.textual_compat.parsed_css import ParsedCss, cache_file

from ..textual_internals import drawn_rows
from .app_harness import SIZE, MakeApp, exchange, seed, settle


def declared(value: object) -> object:
    """A declared value as it compares (Textual makes a layout object per rule)."""
    return ("layout", value.name) if isinstance(value, Layout) else value


def described(rules: list[RuleSet]) -> list[tuple[Any, ...]]:
    """What a stylesheet takes from each rule: its selectors, its declarations and how it ranks."""
    return [
        (
            rule.selector_set,
            {name: declared(value) for name, value in rule.styles.get_rules().items()},
            rule.is_default_rules,
            rule.tie_breaker,
            rule.selector_names,
            rule.pseudo_classes,
        )
        for rule in rules
    ]


async def screen_of(app: CtxChatApp) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The settled screen's rows and the rules of the app's stylesheet."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = [row.text for row in drawn_rows(app.screen)]
        return rows, described(app.stylesheet.rules)


async def test_the_app_looks_the_same_with_its_css_read_back(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app()
    conversation = app.conversation_screen.session.stored_id
    seed(app.workspace.store, exchange(3), conversation_id=conversation)
    parsed_by_textual = await screen_of(app)
    assert "Answer 3 about the database." in "\n".join(parsed_by_textual[0])

    first = ParsedCss(cache_file(tmp_path / "cache"))
    monkeypatch.setattr(stylesheet_module, "parse", first.parse)
    assert await screen_of(make_app()[0]) == parsed_by_textual
    assert first.parsed > 0
    first.save()

    second = ParsedCss(cache_file(tmp_path / "cache"))
    monkeypatch.setattr(stylesheet_module, "parse", second.parse)
    assert await screen_of(make_app()[0]) == parsed_by_textual
    assert second.parsed == 0  # every source was read back


def test_css_with_a_mistake_is_parsed_every_time_so_textual_reports_it(tmp_path: Path) -> None:
    cache = ParsedCss(cache_file(tmp_path))
    rules = list(cache.parse("", "Static { colour: red; }", ("app.tcss", "")))
    assert rules and rules[0].errors
    assert cache.parsed == 0 and cache.rules == {}
    cache.save()
    assert not cache_file(tmp_path).exists()


def test_a_damaged_cache_file_is_an_empty_cache(tmp_path: Path) -> None:
    path = cache_file(tmp_path)
    path.write_bytes(b"not a pickle")
    cache = ParsedCss(path)
    assert cache.rules == {}
    rules = list(cache.parse("", "Static { color: red; }", ("app.tcss", "")))
    assert described(rules) == described(
        list(ParsedCss(tmp_path / "other").parse("", "Static { color: red; }", ("app.tcss", "")))
    )
    cache.save()
    assert ParsedCss(path).rules.keys() == cache.rules.keys()
