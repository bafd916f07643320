"""A reply and its variant side by side (SVG snapshots of the real app, over real HTTP).

Regenerate with `pytest tests/snapshots/test_variant_snapshots.py --snapshot-update` and
look at the picture before committing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import SelectionList

from ctxchat.core.memory import MemoryKind
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.ask_again import AskAgainDialog
from ctxchat.tui.screens.variant_compare import VariantComparison

from ..waiting import until
from .snapshot_apps import BuildApp, steady

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
    app.composer.insert("Which database do we use?")
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
        `k Keep the variant`, `f2 Inspect`."""
        app = build(base_url=server.base_url)
        app.workspace.store.add_memory(MemoryKind.FACT, "The database is SQLite.", key="db")
        app.workspace.store.add_memory(MemoryKind.CONSTRAINT, "Everything runs offline.")
        server.script("SQLite, as you told me.", "I cannot tell which database you use.")
        assert snap_compare(app, run_before=ask_without_the_database_fact, terminal_size=WIDE)
