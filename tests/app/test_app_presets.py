"""The app started with `--preset`: the conversation keeps it, a reply is asked with its
sampling and prompt, and the inspector says what was asked."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ctxchat.chat.options import SessionOptions
from ctxchat.testing.harness import TEST_KEY, open_test_workspace, write_config
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import build_app
from ctxchat.tui.screens.inspector import RequestInspector

from .app_harness import SIZE, settle, typed

PRESET = (
    "[presets.precise]\n"
    'system_prompt = "Answer in one line."\n'
    "temperature = 0.2\n"
    "top_p = 0.5\n"
    "max_output_tokens = 300\n"
)


async def test_the_app_keeps_the_preset_it_started_with(tmp_path: Path) -> None:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as server:
        home = tmp_path / "home"
        config = write_config(home, server.base_url, extra=PRESET)
        server.script("Dry.")
        workspace = open_test_workspace(home, config)
        try:
            app = build_app(workspace, SessionOptions(preset="precise"))
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                session = app.conversation_screen.session
                stored = workspace.store.conversations.get_conversation(session.stored_id)
                assert stored.preset == "precise"

                plan = await typed(pilot, "Weather?")
                assert plan.request_messages()[0]["content"] == "Answer in one line."
                await pilot.press("f2")
                inspector = app.screen
                assert isinstance(inspector, RequestInspector)
                summary = inspector.query_one(".inspector--summary", Static)
                assert "temperature 0.2 · top_p 0.5 · max_tokens 300" in str(summary.render())
                await pilot.press("escape")

                app.conversation_screen.composer.focus()
                await pilot.press("enter")
                await settle(pilot)
            body = server.requests[-1]
            assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.5, 300)
            assert body["messages"][0]["content"] == "Answer in one line."
        finally:
            workspace.close()
