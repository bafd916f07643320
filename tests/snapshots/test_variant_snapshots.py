"""A reply and its variant side by side (SVG snapshots of the real app, over real HTTP).

Regenerate with `pytest tests/snapshots/test_variant_snapshots.py --snapshot-update` and
look at the picture before committing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, SelectionList

from ctxchat.core.memory import MemoryKind
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.ask_again import AskAgainDialog
from ctxchat.tui.screens.variant_compare import VariantComparison
from ctxchat.tui.screens.variant_list import VariantList

from ..waiting import until
from .snapshot_apps import HOUR, BuildApp, Clock, RunBefore, steady

SnapCompare = Callable[..., bool]
WIDE = (160, 40)


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as running:
        yield running


async def ask_without_the_database_fact(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await steady(pilot)
    app.conversation_screen.composer.insert("Which database do we use?")
    await pilot.press("enter")
    await steady(pilot)
    await pilot.press("f8")
    await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
    await pilot.pause()
    app.screen.query_one(SelectionList).select("memory:1")
    await pilot.click("#ask")
    await until(pilot, lambda: isinstance(app.screen, VariantComparison))
    compare = app.screen
    assert isinstance(compare, VariantComparison)
    await until(pilot, lambda: compare.variant is not None)
    await steady(pilot)


class TestReplyAndVariantSideBySide:
    def test_wide(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """`Reply 2 asked again: without memory:1`; on the left `Reply 2 (as sent)` with
        `SQLite, as you told me.`, on the right `Variant 1` with `I cannot tell which
        database you use.`, each with its model, status, estimate and the server's counts;
        below `Request diff: −1 +1 lines · tokens 60 → 49` and the diff: the memory message
        with the fact in red, without it in green; the footer with `esc Keep the reply`,
        `^k Keep the variant`, `f2 Inspect`."""
        app = build(base_url=server.base_url)
        app.workspace.store.memory.add_memory(MemoryKind.FACT, "The database is SQLite.", key="db")
        app.workspace.store.memory.add_memory(MemoryKind.CONSTRAINT, "Everything runs offline.")
        server.script("SQLite, as you told me.", "I cannot tell which database you use.")
        assert snap_compare(app, run_before=ask_without_the_database_fact, terminal_size=WIDE)


async def ask_once(pilot: Pilot[Any], text: str = "Which database do we use?") -> CtxChatApp:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await steady(pilot)
    app.conversation_screen.composer.insert(text)
    await pilot.press("enter")
    await steady(pilot)
    return app


async def choose_the_small_profile(pilot: Pilot[Any]) -> None:
    app = await ask_once(pilot)
    await pilot.press("f8")
    await until(pilot, lambda: isinstance(app.screen, AskAgainDialog))
    await pilot.pause()
    app.screen.query_one("#ask-again-profile", Select).value = "small"
    model = app.screen.query_one("#ask-again-model", Input)
    await until(pilot, lambda: model.value == "tiny")
    await steady(pilot)


class TestAskAgainDialog:
    def test_another_profile_chosen(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """`Ask reply 2 again without…`: `memory: the whole layer (29 tokens)` and
        `memory:1 · The database is SQLite.` unticked, the mode `as asked (personalization)`;
        under `Profile and model (same context)` the select shows `small — tiny at
        http://127.0.0.1:9/v1` and beside it the model field `tiny`; Cancel and Ask again."""
        app = build(
            base_url=server.base_url,
            extra=(
                "[profiles.small]\n"
                'base_url = "http://127.0.0.1:9/v1"\n'
                'model = "tiny"\n'
                'api_key_env = "CTXCHAT_TEST_KEY"\n'
            ),
        )
        app.workspace.store.memory.add_memory(MemoryKind.FACT, "The database is SQLite.", key="db")
        server.script("SQLite, as you told me.")
        assert snap_compare(app, run_before=choose_the_small_profile, terminal_size=WIDE)


MARKDOWN_REPLY = (
    "Use **SQLite** with:\n\n"
    "- WAL mode\n"
    "- `synchronous = NORMAL`\n\n"
    "| setting | value |\n|---|---|\n| journal | WAL |\n\n"
    "```python\nconn.execute('PRAGMA journal_mode=WAL')\n```\n"
)
MARKDOWN_VARIANT = (
    "I cannot tell which database; *commonly*:\n\n"
    "1. PostgreSQL\n2. SQLite\n\n"
    "> Tell me and I will remember it.\n"
)


class TestSideBySideMarkdown:
    def test_both_answers_drawn_as_markdown(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """Reply 2 on the left drawn as Markdown: bold `SQLite`, a bullet list with inline
        code, a two-column table and a Python code block; Variant 1 on the right: italic
        `commonly`, a numbered list and a block quote; no asterisks, backticks or pipes
        anywhere; the request diff below removes the fact."""
        app = build(base_url=server.base_url)
        app.workspace.store.memory.add_memory(MemoryKind.FACT, "The database is SQLite.", key="db")
        server.script(MARKDOWN_REPLY, MARKDOWN_VARIANT)
        assert snap_compare(app, run_before=ask_without_the_database_fact, terminal_size=WIDE)


def regenerate_twice_and_list(clock: Clock) -> RunBefore:
    """Ask once, regenerate twice an hour apart each, then open the reply's variants."""

    async def run(pilot: Pilot[Any]) -> None:
        app = await ask_once(pilot, "Pick a database.")
        for _ in range(2):
            clock.now += HOUR
            app.conversation_screen.chat.again()
            await steady(pilot)
        await pilot.press("f7")
        await until(pilot, lambda: isinstance(app.screen, VariantList))
        await steady(pilot)

    return run


class TestVariantList:
    def test_two_regenerated_replies(
        self,
        build: BuildApp,
        server: ScriptedModelServer,
        clock: Clock,
        snap_compare: SnapCompare,
    ) -> None:
        """`Reply 4: 2 variants`, in the order written: `variant 2  the reply before it was
        regenerated` with `gpt-4o · 6 tokens · 2025-01-06 09:30` under it (the first
        answer), then variant 3 the same with `10 tokens · 2025-01-06 10:30` (the second);
        the note on Enter and ctrl+k; the conversation behind shows the third answer,
        `DuckDB.`; the footer `⏎ Open`, `esc Close`, `^k Keep`."""
        app = build(base_url=server.base_url)
        server.script("SQLite.", "PostgreSQL, surely.", "DuckDB.")
        assert snap_compare(app, run_before=regenerate_twice_and_list(clock), terminal_size=WIDE)
