"""What the budget panel says about a local server that can count: its probed window, the
server's own token count, and what to make of a tokenizer that fails."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer, simple_token_count
from ctxchat.tui.widgets.budget_bar import BudgetBar

from .app_harness import SIZE, MakeApp, settle, status_line, typed, until


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
        await app.conversation_screen.session.server.counted()
        # Typing draws the plan again at once: the draft is not counted yet...
        typing = (await typed(pilot, "And")).counter_note
        await settle(pilot)
        # ...and once typing pauses, the server counts it.
        paused = str(app.query_one(BudgetBar).render())
        await pilot.press("backspace", "backspace", "backspace")
        await settle(pilot)
        after_a_turn = str(app.query_one(BudgetBar).render())

    assert "window 4,096 (measured at the server)" in " ".join(at_start.split())
    # The next request is counted by the server as soon as the app is idle.
    assert "exact counts (server tokenizer, " in at_start
    assert typing.endswith(", 1 not counted by the server yet")
    assert "exact counts (server tokenizer, " in paused
    # Everything sent and received was counted by the server once the turn was over.
    assert "exact counts (server tokenizer, " in after_a_turn


async def test_without_usage_the_reply_is_told_as_the_servers_tokenizer_counts_it(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """llama-cpp-python streams no usage; it can count. Once its tokenizer has counted the
    reply (in the background), the status line gives that count beside ctxchat's."""
    server.ignore_stream_options = True  # no usage chunk, as llama-cpp-python streams
    server.script("Bonjour, et bienvenue: the reply in a handful of words.")
    app, _ = make_app(context_window=0, output_reserve=512)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed(pilot, "Say hello in French.")
        await pilot.press("enter")
        await settle(pilot)
        session = app.conversation_screen.session
        reply = session.store.messages.messages(session.stored_id)[-1]
        assert reply.completion_tokens is None
        counted = simple_token_count(reply.content) - simple_token_count("")
        await until(
            pilot,
            lambda: status_line(app).startswith(f"reply {reply.tokens} tokens (server counted "),
        )
        assert status_line(app).startswith(
            f"reply {reply.tokens} tokens (server counted {counted}) · "
        )
