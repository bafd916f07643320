"""Conversations on the engine: a command with nothing configured gets a reply from it, and
an engine killed while it writes keeps the reply as far as it came, marked, and starts
again with the next message."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect, open_session
from ctxchat.chat.turn import ReplyDelta, TurnFailed, TurnFinished, send_message
from ctxchat.chat.workspace import Workspace, open_workspace
from ctxchat.core.history import MessageStatus
from ctxchat.engine.backend import KILLED, EngineBackend
from ctxchat.engine.control import running_engine, stop_engine

from ..engine_server import skip_reason

pytestmark = pytest.mark.integration

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)

PATIENCE = 600.0
"""A guard against a hang of a real model on a busy machine, not a timing assertion."""


def test_send_with_nothing_configured_answers_from_the_model_on_this_machine(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # An empty HOME, no key, no config, no server: what a new user has.
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    command = [sys.executable, "-m", "ctxchat.cli.main"]
    try:
        done = subprocess.run(
            [*command, "send", "--new", "Name three colours."],
            env=env,
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            check=False,
        )
        print(done.stdout)
        assert (done.returncode, done.stderr) == (0, "")
        assert done.stdout.strip()
    finally:
        subprocess.run([*command, "engine", "stop"], env=env, capture_output=True, check=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    config = tmp_path / "config.toml"
    config.write_text(
        '[profiles.local]\nengine = "smollm2"\noutput_reserve = 200\n'
        '[context]\nsystem_prompt = "You are terse."\n[summary]\nauto = false\n'
    )
    env = {"CTXCHAT_ENGINE_IDLE": "300"}
    opened = open_workspace(config=config, data_dir=tmp_path / "data", env=env)
    yield opened
    opened.close()
    stop_engine(opened.locations.engine_dir)


async def test_an_engine_killed_mid_reply_keeps_the_reply_and_starts_again(
    workspace: Workspace,
) -> None:
    conversation = workspace.start_conversation(workspace.settings.profile())
    session = open_session(workspace, SessionOptions(), conversation, connect=Connect.MUST)
    assert isinstance(session.backend, EngineBackend)
    killed = None
    events = []
    async for event in send_message(session, "Count from one to a hundred in words."):
        events.append(event)
        if isinstance(event, ReplyDelta) and killed is None:
            engine = running_engine(workspace.locations.engine_dir)
            assert engine is not None
            killed = engine.pid
            os.kill(killed, signal.SIGKILL)

    ended = events[-1]
    assert isinstance(ended, TurnFailed), ended
    assert ended.error.message == KILLED
    stored = workspace.store.messages.get_message(ended.reply.id)
    assert stored.status is MessageStatus.INTERRUPTED
    assert stored.content and stored.content == ended.reply.content
    assert stored.error is not None and stored.error.startswith(KILLED)

    again = [e async for e in send_message(session, "Say yes.")]

    assert isinstance(again[-1], TurnFinished), again[-1]
    engine = running_engine(workspace.locations.engine_dir)
    assert engine is not None and engine.pid != killed
