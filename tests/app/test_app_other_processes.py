"""What the app shows is the database: a memory entry, a summary or a turn another process
stores in the open conversation reaches the screen without a key pressed, and the app's next
turn goes after it, overwriting nothing."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from pathlib import Path

from ctxchat.core.budget import Layer
from ctxchat.testing.harness import test_env as harness_env
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.widgets.memory_panel import MemoryPanel

from .app_harness import SIZE, MakeApp, exchange, seed, settle, shown_messages, typed, until


async def other_process(home: Path, *args: str) -> str:
    """`ctxchat ARGS` as another process on the same config and database; its output."""
    env = {**os.environ, **harness_env(home, home / "config.toml")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ctxchat.cli.main",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_a_memory_entry_added_by_another_process_reaches_the_panel_and_the_plan(
    make_app: MakeApp, tmp_path: Path
) -> None:
    app, _ = make_app()
    conversation = seed(app.workspace.store, exchange(1))[0].conversation_id
    async with app.run_test(size=SIZE) as pilot:
        await app.conversation_screen.open_conversation(conversation)
        await until(pilot, lambda: len(shown_messages(app)) == 2)
        panel = app.query_one("#memory", MemoryPanel)
        assert panel.entries == []

        text = "The user's cat is called Ferro."
        await other_process(
            tmp_path / "home", "memory", "add", "--conversation", str(conversation), text
        )

        await until(pilot, lambda: [e.text for e in panel.entries] == [text])

        def memory_planned() -> bool:
            plan = app.conversation_screen.last_plan
            return plan is not None and any(
                text in m.content for m in plan.messages if m.layer is Layer.MEMORY
            )

        await until(pilot, memory_planned)
        await settle(pilot)


async def test_a_summary_made_by_another_process_reaches_the_summary_layer(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path
) -> None:
    app, _ = make_app(
        extra="[context]\nmin_recent = 2\n[summary]\nauto = false\nmin_messages = 2\n"
    )
    conversation = seed(app.workspace.store, exchange(3))[0].conversation_id
    async with app.run_test(size=SIZE) as pilot:
        await app.conversation_screen.open_conversation(conversation)
        await until(pilot, lambda: len(shown_messages(app)) == 6)
        plan = app.conversation_screen.last_plan
        assert plan is not None and plan.layer(Layer.SUMMARY).items == ()

        server.script("Summary from the shell: three questions about the database.")
        told = await other_process(
            tmp_path / "home", "summarize", "--conversation", str(conversation), "--json"
        )
        assert json.loads(told)["version"] is not None, told

        def summary_planned() -> bool:
            plan = app.conversation_screen.last_plan
            return plan is not None and any(
                "Summary from the shell" in m.content
                for m in plan.messages
                if m.layer is Layer.SUMMARY
            )

        await until(pilot, summary_planned)
        await settle(pilot)


async def test_the_apps_turn_after_another_process_turn_goes_after_it(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    conversation = seed(store, exchange(1))[0].conversation_id
    server.script("Shell answer.", "TUI answer.")
    async with app.run_test(size=SIZE) as pilot:
        await app.conversation_screen.open_conversation(conversation)
        await until(pilot, lambda: len(shown_messages(app)) == 2)

        await other_process(
            tmp_path / "home", "send", "--conversation", str(conversation), "From the shell"
        )
        await until(pilot, lambda: shown_messages(app)[-1] == ("assistant", "Shell answer."))

        await typed(pilot, "And from the TUI")
        await pilot.press("enter")
        await until(pilot, lambda: shown_messages(app)[-1] == ("assistant", "TUI answer."))
        await settle(pilot)
    stored = store.messages.messages(conversation)
    assert [(m.role, m.content) for m in stored] == [
        *exchange(1),
        ("user", "From the shell"),
        ("assistant", "Shell answer."),
        ("user", "And from the TUI"),
        ("assistant", "TUI answer."),
    ]
    assert [m.id for m in stored] == sorted({m.id for m in stored})  # one history, in order


async def test_a_turn_stored_by_another_process_while_a_reply_streams_is_kept_and_shown(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    conversation = seed(store, exchange(1))[0].conversation_id
    held = threading.Event()
    server.script("The app's answer, held a while.", "Shell answer.")
    server.fail_next(Fault.STALL, after=2, until=held)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await app.conversation_screen.open_conversation(conversation)
            await until(pilot, lambda: len(shown_messages(app)) == 2)
            await typed(pilot, "From the app")
            await pilot.press("enter")
            await until(pilot, lambda: shown_messages(app)[-1] == ("assistant", "The app's an"))

            await other_process(
                tmp_path / "home", "send", "--conversation", str(conversation), "From the shell"
            )
            held.set()

            whole = [
                *exchange(1),
                ("user", "From the app"),
                ("assistant", "The app's answer, held a while."),
                ("user", "From the shell"),
                ("assistant", "Shell answer."),
            ]
            await until(pilot, lambda: shown_messages(app) == whole)
            await settle(pilot)
    finally:
        held.set()
    assert [(m.role, m.content, m.status) for m in store.messages.messages(conversation)] == [
        (role, text, "complete") for role, text in whole
    ]
