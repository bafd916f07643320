"""What the model reads, token for token: on a llama.cpp server the inspector's Rendered tab
and `context --json` show the prompt its chat template renders, and the budget panel what
the template adds; a server that cannot render says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.rendered import RenderedRequest
from ctxchat.core.next_message import NEXT_MESSAGE
from ctxchat.testing.harness import TEST_KEY, open_test_workspace, write_config
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.testing.server.flavours import render_chatml
from ctxchat.testing.server.script import simple_token_count
from ctxchat.tui.app import build_app
from ctxchat.tui.screens.inspector import RequestInspector, WrappedLines
from ctxchat.tui.widgets.budget_bar import BudgetBar

from ..tui_widgets.widget_hosts import rendered as drawn
from .app_harness import SIZE, Cli, settle, shown_messages, typed, until

MODEL = "gemma-3-270m"


@pytest.fixture
def llama_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(
        models=[MODEL], requires_key=TEST_KEY, flavour=Flavour.LLAMA_CPP
    ) as running:
        yield running


def config_for(home: Path, server: ScriptedModelServer) -> Path:
    """A config that sets no window: the server says it (and its tokenizer and template)."""
    return write_config(home, server.base_url, model=MODEL, context_window=0, output_reserve=64)


async def test_the_inspector_shows_the_rendered_prompt_and_the_panel_what_the_template_adds(
    tmp_path: Path, llama_server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    workspace = open_test_workspace(home, config_for(home, llama_server))
    llama_server.script("Blue.")
    try:
        app = build_app(workspace, SessionOptions())
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)  # the server asked what it is
            screen = app.conversation_screen
            assert screen.session.server_counts is not None
            await typed(pilot, "Name a colour.")
            await pilot.press("enter")
            await until(pilot, lambda: shown_messages(app)[-1:] == [("assistant", "Blue.")])
            await settle(pilot)  # the reply counted and the next request rendered

            plan = screen.last_plan
            assert plan is not None
            messages = plan.request_messages()
            text = render_chatml(messages)
            tokens = 1 + simple_token_count(text)
            added = tokens - sum(simple_token_count(m["content"]) for m in messages)
            bar = " ".join(drawn(screen.query_one(BudgetBar)).split())
            assert f"exact counts (server tokenizer, {tokens:,} tokens)" in bar
            assert f"template adds {added:,} tokens" in bar

            await pilot.press("f2", "ctrl+r")
            inspector = app.screen
            assert isinstance(inspector, RequestInspector)
            await until(pilot, lambda: inspector.rendered is not None)
            assert isinstance(inspector.rendered, RenderedRequest)
            # Nothing typed: the inspector's request ends with the placeholder's turn.
            messages = inspector.body["messages"]
            assert messages[:-1] == plan.request_messages()
            text = render_chatml(messages)
            tokens = 1 + simple_token_count(text)
            added = tokens - sum(simple_token_count(m["content"]) for m in messages)
            view = inspector.query_one("#rendered-view", WrappedLines).text
            assert view.startswith(
                "As the server's chat template renders it · "
                f"{tokens:,} tokens by the server's tokenizer\n"
                f"template adds {added:,} tokens to the messages' {tokens - added:,}\n"
            )
            assert view.endswith("\n<bos>" + text)
    finally:
        workspace.close()


async def test_with_an_empty_composer_the_inspector_shows_a_request_with_a_placeholder(
    tmp_path: Path, llama_server: ScriptedModelServer
) -> None:
    """Nothing typed: the next request still ends with a user's turn, a marked placeholder,
    so the rendering ends with the template's start of the reply, as a real request does
    (not with the last reply, as a prefill the model never sees)."""
    home = tmp_path / "home"
    workspace = open_test_workspace(home, config_for(home, llama_server))
    llama_server.script("Blue.")
    try:
        app = build_app(workspace, SessionOptions())
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await typed(pilot, "Name a colour.")
            await pilot.press("enter")
            await until(pilot, lambda: shown_messages(app)[-1:] == [("assistant", "Blue.")])
            await settle(pilot)
            assert app.conversation_screen.draft() is None

            await pilot.press("f2", "ctrl+r")
            inspector = app.screen
            assert isinstance(inspector, RequestInspector)
            messages = inspector.body["messages"]
            assert messages[-1] == {"role": "user", "content": NEXT_MESSAGE}
            assert messages[-2] == {"role": "assistant", "content": "Blue."}
            label = inspector.query_one(".inspector--placeholder", Static).render()
            assert str(label).startswith(f"{NEXT_MESSAGE} is a placeholder for the message")
            await until(pilot, lambda: inspector.rendered is not None)
            view = inspector.query_one("#rendered-view", WrappedLines).text
            assert view.endswith(
                f"<|im_start|>user\n{NEXT_MESSAGE}<|im_end|>\n<|im_start|>assistant\n"
            )
            assert view.endswith(render_chatml(messages))
    finally:
        workspace.close()


async def test_context_json_carries_the_rendered_prompt(
    tmp_path: Path, cli: Cli, llama_server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    run = cli(home, str(config_for(home, llama_server)))

    plan = await run("context", "--json", "--message", "Name a colour.")

    messages = [
        {"role": m["role"], "content": m["content"]} for m in plan["request"]["body"]["messages"]
    ]
    text = render_chatml(messages)
    tokens = 1 + simple_token_count(text)
    assert plan["rendered"] == {
        "text": text,
        "added_by_tokenizer": "<bos>",
        "tokens": tokens,
        "template_tokens": tokens - sum(simple_token_count(m["content"]) for m in messages),
        "left_out": [],
    }
    assert "rendered_reason" not in plan


async def test_context_json_says_why_there_is_no_rendered_prompt(
    tmp_path: Path, cli: Cli, server: ScriptedModelServer
) -> None:
    home = tmp_path / "home"
    run = cli(home, str(write_config(home, server.base_url)))

    asked = await run("context", "--json", "--message", "Hello")
    offline = await run("context", "--json", "--offline", "--message", "Hello")

    assert asked["rendered"] is None
    assert asked["rendered_reason"].startswith(
        "This server does not render its chat template for clients"
    )
    assert offline["rendered"] is None
    assert offline["rendered_reason"].startswith("No server was asked (offline)")
