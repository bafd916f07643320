"""What ctxchat promises on any llama.cpp server holds on its own engine, through an
`engine` profile (the key sent with every request, side requests included): the window
from the server, exact counts by its tokenizer, the prompt as its template renders it,
cached prefix tokens, stop and retry."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.rendered import RenderedRequest, render_request
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, learn_server, open_session
from ctxchat.chat.turn import ReplyDelta, TurnFinished, TurnStarted, regenerate, send_message
from ctxchat.chat.workspace import Workspace, open_workspace
from ctxchat.core.history import MessageStatus
from ctxchat.engine.state import EngineState

from ..engine_server import N_CTX, skip_reason

pytestmark = pytest.mark.integration

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)

CONFIG = """[profiles.local]
engine = "smollm2"
output_reserve = 24
[context]
system_prompt = "You are terse."
[summary]
auto = false
"""


@pytest.fixture
def workspace(tmp_path: Path, engine_dir: Path, engine_server: EngineState) -> Iterator[Workspace]:
    (tmp_path / "config.toml").write_text(CONFIG)
    env = {"CTXCHAT_ENGINE_DIR": str(engine_dir)}
    opened = open_workspace(config=tmp_path / "config.toml", data_dir=tmp_path / "data", env=env)
    yield opened
    opened.close()


async def session_on(workspace: Workspace) -> ChatSession:
    conversation = workspace.start_conversation(workspace.settings.profile())
    session = open_session(workspace, SessionOptions(), conversation, connect=Connect.MUST)
    await learn_server(session, workspace)
    return session


async def test_the_window_and_exact_counts_come_from_the_engine(
    workspace: Workspace, engine_server: EngineState
) -> None:
    session = await session_on(workspace)

    assert session.profile.base_url == engine_server.base_url
    assert (session.window.context_window, session.window.source) == (N_CTX, "server")
    events = [e async for e in send_message(session, "Name a colour.")]
    assert isinstance(events[-1], TurnFinished)
    plan = session.plan("And another?")
    rendered = await render_request(session, plan.request_messages())
    counted = session.plan("And another?")

    assert isinstance(rendered, RenderedRequest)
    assert rendered.text.startswith("<|im_start|>system\nYou are terse.<|im_end|>\n")
    assert counted.exact
    assert counted.counter_note.startswith(f"exact: server tokenizer, {rendered.tokens:,} tokens")


async def test_the_second_request_reuses_the_cached_start_of_the_first(
    workspace: Workspace,
) -> None:
    session = await session_on(workspace)

    first = [e async for e in send_message(session, "Name a colour.")]
    second = [e async for e in send_message(session, "Name another one.")]

    assert isinstance(first[-1], TurnFinished) and isinstance(second[-1], TurnFinished)
    assert second[-1].reply.cached_tokens is not None and second[-1].reply.cached_tokens > 0


async def test_a_reply_stopped_is_kept_and_answered_again_by_retry(
    workspace: Workspace,
) -> None:
    session = await session_on(workspace)
    started = None
    async with contextlib.aclosing(send_message(session, "Count to twenty.")) as events:
        async for event in events:
            if isinstance(event, TurnStarted):
                started = event
            if isinstance(event, ReplyDelta):
                break  # the user stops it
    assert started is not None
    stopped = workspace.store.messages.get_message(started.reply_id)
    assert stopped.status is MessageStatus.INTERRUPTED and stopped.content

    again = [e async for e in regenerate(session)]

    assert isinstance(again[-1], TurnFinished)
    assert again[-1].reply.status is MessageStatus.COMPLETE
    assert [m.role for m in session.history()] == ["user", "assistant"]
