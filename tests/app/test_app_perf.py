"""Optimisations of the running app, pinned behind the `perf` marker (see each docstring)."""

from __future__ import annotations

import gc

import pytest

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.collector import HELD

from .app_harness import SIZE, MakeApp, settle, stalled_reply


@pytest.mark.perf
async def test_no_full_collection_runs_while_a_reply_streams(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """Protects streaming from pauses: the collector's full passes wait while a reply
    streams, and its thresholds are as they were once the reply stops."""
    app, _ = make_app()
    before = gc.get_threshold()
    async with app.run_test(size=SIZE) as pilot:
        await stalled_reply(pilot, server)
        assert gc.get_threshold() == (*before[:2], HELD)
        await pilot.press("escape")
        await settle(pilot)
        assert gc.get_threshold() == before
