"""What the budget panel says about a local server that can count: its probed window, the
server's own token count, and what to make of a tokenizer that fails."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.widgets.budget_bar import BudgetBar

from .app_harness import SIZE, MakeApp, settle, typed


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    """A llama-cpp-python server running a 4,096-token window it does not report."""
    with ScriptedModelServer(
        models=["gpt-4o", "gpt-4o-mini"],
        requires_key=TEST_KEY,
        flavour="llama-cpp-python",
        n_ctx=4096,
    ) as running:
        yield running


async def test_the_panel_shows_the_probed_window_and_the_servers_count(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=0, output_reserve=512)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        at_start = str(app.query_one(BudgetBar).render())
        await typed(pilot, "Hello there")
        await pilot.press("enter")
        await settle(pilot)
        await app.conversation_screen.session.counted_with_server()
        await typed(pilot, "And")  # typing draws the plan again: the draft is not counted
        await settle(pilot)
        typing = str(app.query_one(BudgetBar).render())
        await pilot.press("backspace", "backspace", "backspace")
        await settle(pilot)
        after_a_turn = str(app.query_one(BudgetBar).render())

    assert "window 4,096 (probed)" in at_start
    assert "not counted by the server yet" in at_start
    assert "1 not counted by the server yet" in typing
    # Everything sent and received was counted by the server once the turn was over.
    assert "exact (server tokenizer, " in after_a_turn
