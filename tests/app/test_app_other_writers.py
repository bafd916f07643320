"""The TUI and `ctxchat send` on one database: the TUI sees, plans with and sends the other's turns."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from ctxchat.testing.harness import test_env as harness_env
from ctxchat.testing.server import ScriptedModelServer

from .app_harness import SIZE, MakeApp, exchange, seed, settle, shown_messages, typed, until


async def ctxchat_send(home: Path, *args: str) -> None:
    """`ctxchat send ARGS` as another process, on the same config and database."""
    env = {**os.environ, **harness_env(home, home / "config.toml")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ctxchat.cli.main",
        "send",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await process.communicate()
    assert process.returncode == 0, err.decode()


async def test_a_turn_sent_by_another_process_is_shown_planned_and_sent(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path
) -> None:
    app, _ = make_app()
    conversation = seed(app.workspace.store, exchange(1))[0].conversation_id
    server.script("Shell answer.", "TUI answer.")
    async with app.run_test(size=SIZE) as pilot:
        await app.conversation_screen.open_conversation(conversation)
        await until(pilot, lambda: len(shown_messages(app)) == 2)
        await typed(pilot, "A draft")  # the session has read and planned the conversation

        await ctxchat_send(tmp_path / "home", "--conversation", str(conversation), "From the shell")

        # The very next plan holds the other process's turn, before the screen catches up.
        planned = [
            m["content"] for m in app.conversation_screen.session.plan("Next").request_messages()
        ]
        assert planned[-3:] == ["From the shell", "Shell answer.", "Next"]
        # The screen shows it, without anything pressed.
        turns = [("user", "From the shell"), ("assistant", "Shell answer.")]
        await until(pilot, lambda: shown_messages(app)[-2:] == turns)

        app.conversation_screen.composer.clear()
        await typed(pilot, "And from the TUI")
        await pilot.press("enter")
        await settle(pilot)
    sent = [m["content"] for m in server.requests[-1]["messages"]]
    assert sent[-3:] == ["From the shell", "Shell answer.", "And from the TUI"]


async def test_a_preset_another_process_chose_brings_its_model_when_the_conversation_is_back(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path
) -> None:
    app, notes = make_app(extra='[presets.coder]\nmodel = "other-model"\n')
    store = app.workspace.store
    screen = app.conversation_screen
    conversation = seed(store, exchange(1))[0].conversation_id
    other = store.conversations.create_conversation("Other").id
    server.script("Shell answer.", "TUI answer.")
    async with app.run_test(size=SIZE) as pilot:
        await screen.open_conversation(conversation)
        await settle(pilot)
        kept = screen.session
        model = kept.model
        await screen.open_conversation(other)
        await settle(pilot)

        # A command that sends remembers its preset for the conversation.
        await ctxchat_send(
            tmp_path / "home", "--conversation", str(conversation), "--preset", "coder", "Hi"
        )
        assert server.requests[-1]["model"] == "other-model"
        await screen.open_conversation(conversation)
        await settle(pilot)

        assert screen.session is kept  # still the conversation's session of this run
        assert screen.session.model == "other-model" != model
        assert any(
            note.startswith("Now talking to other-model") for note in notes.of("information")
        )
        await typed(pilot, "And from the TUI")
        await pilot.press("enter")
        await settle(pilot)
    assert server.requests[-1]["model"] == "other-model"
