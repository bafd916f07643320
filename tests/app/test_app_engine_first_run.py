"""First run on a machine with nothing configured, no server and no key: the model on this
machine is the choice made, one Enter saves it, and the conversation's replies come from it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from ctxchat.chat.workspace import Workspace
from ctxchat.engine.backend import EngineBackend
from ctxchat.engine.control import stop_engine
from ctxchat.tui.screens.setup import SetupScreen

from ..engine_server import skip_reason
from .app_harness import SIZE, settle, shown_messages, typed, until
from .test_app_startup import first_run

pytestmark = pytest.mark.integration

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)

PATIENCE = 600.0
"""A guard against a hang of a real model on a busy machine, not a timing assertion."""


async def test_one_enter_starts_a_conversation_with_the_model_on_this_machine(
    tmp_path: Path, workspaces: list[Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = await first_run(tmp_path, workspaces, monkeypatch, ports=[])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, SetupScreen)
            assert app.screen.provider == "engine"

            await pilot.press("enter")
            await settle(pilot)

            assert not isinstance(app.screen, SetupScreen)
            config = tomllib.loads((tmp_path / "config.toml").read_text(encoding="utf-8"))
            assert config["profiles"] == {
                "local": {
                    "model": "smollm2",
                    "engine": "smollm2",
                    "context_window": 0,
                    "output_reserve": 0,
                    "headers": {},
                    "pricing": "auto",
                }
            }
            session = app.conversation_screen.session
            assert isinstance(session.backend, EngineBackend)

            await typed(pilot, "Name a colour.")
            await pilot.press("enter")
            conversation = session.conversation_id
            assert conversation is not None

            def answered() -> bool:
                reply = session.store.messages.newest_message(conversation, role="assistant")
                return reply is not None and reply.status.value != "streaming"

            await until(pilot, answered, timeout=PATIENCE)
            reply = session.store.messages.newest_message(conversation, role="assistant")
            assert reply is not None and reply.status.value == "complete", reply
            assert reply.content.strip()
            assert reply.prompt_tokens  # the engine's own usage
            await until(pilot, lambda: shown_messages(app)[-1] == ("assistant", reply.content))
            assert session.backend.state is not None  # the engine answered
    finally:
        stop_engine(tmp_path / "data" / "engine")
