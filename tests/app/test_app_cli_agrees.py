"""One session everywhere: `ctxchat context` and the TUI plan the same conversation alike,
with the window the server reported (cached), the same recall and the same profile."""

from __future__ import annotations

import socket
from pathlib import Path

from ctxchat.chat.counted_first import count_first
from ctxchat.chat.options import SessionOptions
from ctxchat.config.state import load_state
from ctxchat.core.memory import MemoryKind
from ctxchat.store import Store
from ctxchat.testing.harness import TEST_KEY, open_test_workspace, write_config
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.tui.app import build_app

from .app_harness import SIZE, Cli, MakeApp, settle, typed

DRAFT = "Which database did we choose, and why?"


def local_server() -> ScriptedModelServer:
    """A llama.cpp server running its model with a 6,144-token window."""
    return ScriptedModelServer(
        models=["local-model"], requires_key=TEST_KEY, flavour=Flavour.LLAMA_CPP, n_ctx=6_144
    )


def local_config(home: Path, server: ScriptedModelServer, extra: str = "") -> Path:
    """A config for `server` that sets no window: it is the server's to say."""
    return write_config(
        home, server.base_url, model="local-model", context_window=0, output_reserve=0, extra=extra
    )


def seed_conversation(store: Store) -> int:
    conversation = store.conversations.create_conversation("Databases").id
    turns = [
        ("user", "We need a database for the billing service."),
        ("assistant", "PostgreSQL fits: transactions, mature tooling."),
        ("user", "What about the cache?"),
        ("assistant", "Redis, with a short expiry."),
    ] * 3
    for role, text in turns:
        store.messages.add_message(
            conversation, role, text, tokens=0, exact=False, encoding="estimate"
        )
    store.memory.add_memory(MemoryKind.FACT, "Billing runs on PostgreSQL 16.", pinned=True)
    store.memory.add_memory(MemoryKind.PREFERENCE, "Prefers managed services.")
    return conversation


async def test_the_cli_and_the_tui_plan_a_conversation_alike(tmp_path: Path, cli: Cli) -> None:
    # No window in the config: both must use the one the server reports (llama.cpp: n_ctx).
    with local_server() as server:
        home = tmp_path / "home"
        config = local_config(home, server, extra="[context]\nmin_recent = 4\n")
        run = cli(home, str(config))
        workspace = open_test_workspace(home, config)
        try:
            conversation = seed_conversation(workspace.store)
            app = build_app(workspace, SessionOptions(conversation=conversation))
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)  # the window asked, semantic recall loaded
                assert app.conversation_screen.session.window.context_window == 6_144
                await typed(pilot, DRAFT)
                session = app.conversation_screen.session
                # As a send does (and the command): the server counts the plan's messages
                # and renders its request first.
                await count_first(session, DRAFT)
                tui = session.with_request(session.plan(DRAFT)).to_dict()
        finally:
            workspace.close()
        facts = load_state(home / "data" / "state.toml").state.facts_for(
            server.base_url, "local-model"
        )
        assert facts is not None
        assert (facts.context_window, facts.window_source, facts.flavour) == (
            6_144,
            "server",
            "llama.cpp",
        )

        probes = len(server.other_requests)
        cli_plan = await run("context", "--json", "--message", DRAFT)
        # The cached facts answered (its tokenize endpoint among them): the server is only
        # asked to render the request and to count its messages.
        asked = {request.path for request in server.other_requests[probes:]}
        assert asked == {"/apply-template", "/tokenize"}
        rendered = cli_plan.pop("rendered")
        # One figure for the request: the server's count of its rendering, everywhere.
        assert rendered["tokens"] == tui["server_tokens"] == cli_plan.pop("prompt_tokens")
        assert cli_plan.pop("figure").startswith(f"{tui['server_tokens']:,} tokens by the server")
        assert cli_plan.pop("conversation_id") == conversation
        assert cli_plan.pop("window_source") == "server"
        assert cli_plan.pop("server") == {
            "flavour": "llama.cpp",
            "tokenizer": "server",
            "context_window": 6_144,
            "checked_at": facts.checked_at.isoformat(),
        }
        assert cli_plan.pop("sampling") == {
            "preset": None,
            "temperature": None,
            "top_p": None,
            "max_tokens": tui["budget"]["output_reserve"],
        }
        # What recall by meaning took in the command (the app loads it in a worker).
        meaning = cli_plan.pop("recall_by_meaning")
        assert meaning is None or (meaning["left"] == 0 and meaning["loading_seconds"] > 0)
        assert cli_plan == tui
        assert tui["budget"]["context_window"] == 6_144
        refs = [m["ref"] for m in tui["messages"]]
        assert "memory" in refs and refs[-1] == "input"


async def test_offline_plans_without_asking_the_server(tmp_path: Path, cli: Cli) -> None:
    with local_server() as server:
        home = tmp_path / "home"
        config = local_config(home, server)
        run = cli(home, str(config))
        offline = await run("context", "--json", "--offline", "--message", "Hello")
        assert server.other_requests == []
        assert (offline["budget"]["context_window"], offline["window_source"]) == (
            4_096,
            "default",
        )
        asked = await run("context", "--json", "--message", "Hello")
        assert (asked["budget"]["context_window"], asked["window_source"]) == (6_144, "server")
        # From now on the answer is cached: offline or not, no one asks again.
        probes = len(server.other_requests)
        again = await run("context", "--json", "--offline", "--message", "Hello")
        assert (again["budget"]["context_window"], again["window_source"]) == (6_144, "server")
        assert len(server.other_requests) == probes


async def test_the_app_offline_asks_the_server_nothing_but_replies(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=0, offline=True)
    server.script("Here.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert (
            app.conversation_screen.session.window.source == "table"
        )  # gpt-4o's documented window
        await typed(pilot, "Anyone there?")
        await pilot.press("enter")
        await settle(pilot)
    assert server.other_requests == []
    assert [r["messages"][-1]["content"] for r in server.requests] == ["Anyone there?"]


async def test_a_server_that_did_not_answer_is_asked_again_next_time(
    tmp_path: Path, cli: Cli
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    home = tmp_path / "home"
    config = write_config(home, f"http://127.0.0.1:{port}/v1", context_window=0)
    run = cli(home, str(config))
    plan = await run("context", "--json", "--message", "Hello")
    assert (plan["budget"]["context_window"], plan["window_source"]) == (128_000, "table")
    state = load_state(home / "data" / "state.toml").state
    assert state.facts_for(f"http://127.0.0.1:{port}/v1", "gpt-4o") is None
