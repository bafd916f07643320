"""One number per request: on a server that counts (llama.cpp), the panel's headline, the
inspector's header, its Rendered tab and `context --json` give the same figure for the next
request, the server's count, with ctxchat's estimate said as such beside it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.chat.options import SessionOptions
from ctxchat.core.plan import ContextPlan
from ctxchat.testing.harness import TEST_KEY, open_test_workspace, write_config
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.testing.server.flavours import llama_cpp_prompt_tokens
from ctxchat.tui.app import build_app
from ctxchat.tui.screens.inspector import RequestInspector, WrappedLines
from ctxchat.tui.widgets.budget_bar import BudgetBar

from ..tui_widgets.widget_hosts import rendered as drawn
from .app_harness import SIZE, Cli, settle, typed, until

MODEL = "local-model"
DRAFT = "Which port did we pick, and why?"


@pytest.fixture
def llama_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(
        models=[MODEL], requires_key=TEST_KEY, flavour=Flavour.LLAMA_CPP, n_ctx=4096
    ) as running:
        yield running


async def test_the_panel_the_inspector_the_rendered_tab_and_context_agree_and_the_app_sends_it(
    tmp_path: Path, cli: Cli, llama_server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    config = write_config(home, llama_server.base_url, model=MODEL, context_window=0)
    workspace = open_test_workspace(home, config)
    try:
        conversation = workspace.store.conversations.create_conversation("Ports").id
        for role, text in [
            ("user", "Which port for the database?"),
            ("assistant", "Port 5432, PostgreSQL's default!!! (no clash here)."),
        ] * 4:
            workspace.store.messages.add_message(
                conversation, role, text, tokens=0, exact=False, encoding="e"
            )
        app = build_app(workspace, SessionOptions(conversation=conversation))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = app.conversation_screen
            await typed(pilot, DRAFT)
            # Once typing pauses, the server counts and renders the draft's request.
            await until(pilot, lambda: _counted(screen.planner.plan))
            plan = screen.planner.plan
            assert plan is not None and plan.server_tokens is not None
            figure = plan.server_tokens
            assert figure == llama_cpp_prompt_tokens(llama_server, plan.request_messages())
            assert figure != plan.tokens  # the estimate differs, and is said as such
            room = plan.context_window - plan.output_reserve

            bar = " ".join(drawn(screen.query_one(BudgetBar)).split())
            assert f"used {figure:,} of {room:,} by the server's count" in bar
            assert f"ctxchat's estimate {plan.tokens:,}: the server's tokenizer and its chat " in (
                bar
            )
            assert f"free {room - figure:,}" in bar

            await pilot.press("f2")
            inspector = app.screen
            assert isinstance(inspector, RequestInspector)
            header = " ".join(drawn(inspector.query_one(".inspector--summary")).split())
            assert f"{figure:,} tokens by the server's count (ctxchat's estimate" in header
            await pilot.press("ctrl+r")
            await until(pilot, lambda: inspector.rendered is not None)
            view = inspector.query_one("#rendered-view", WrappedLines).text
            assert f"{figure:,} tokens by the server's tokenizer" in view.splitlines()[0]
    finally:
        workspace.close()

    planned = await cli(home, str(config))("context", "--json", "--message", DRAFT)
    assert planned["prompt_tokens"] == planned["server_tokens"] == figure
    assert planned["rendered"]["tokens"] == figure
    assert planned["figure"].startswith(f"{figure:,} tokens by the server's count")

    # A new run of the app sends for the draft the very body the command planned.
    llama_server.script("Port 5432.")
    workspace = open_test_workspace(home, config)
    try:
        app = build_app(workspace, SessionOptions(conversation=conversation))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await typed(pilot, DRAFT)
            await pilot.press("enter")
            await until(pilot, lambda: bool(llama_server.requests))
            await settle(pilot)
    finally:
        workspace.close()
    body = planned["request"]["body"]
    sent = llama_server.requests[-1]
    assert (sent["messages"], sent["max_tokens"]) == (body["messages"], body["max_tokens"])


def _counted(plan: ContextPlan | None) -> bool:
    return (
        plan is not None
        and plan.exact
        and plan.server_tokens is not None
        and "template adds" in plan.counter_note
    )
