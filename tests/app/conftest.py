"""Real ctxchat apps on temp dirs, talking to a scripted model server; UTC clock.

`make_app(...)` builds the app the way `ctxchat` would (config file, state file, store,
model backend) and returns it with a recorder of every notification it shows.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from app_harness import Cli, MakeApp, Notes

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.workspace import Workspace
from ctxchat.cli.main import main
from ctxchat.testing import harness
from ctxchat.testing.harness import TEST_KEY, open_test_workspace, write_config
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp, build_app


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Dates render in UTC, whatever the machine's zone."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o", "gpt-4o-mini"], requires_key=TEST_KEY) as running:
        yield running


@pytest.fixture
def workspaces() -> Iterator[list[Workspace]]:
    """Every workspace a test opened, closed at the end."""
    opened: list[Workspace] = []
    yield opened
    for workspace in opened:
        workspace.close()


@pytest.fixture
def make_app(tmp_path: Path, server: ScriptedModelServer, workspaces: list[Workspace]) -> MakeApp:
    """Build the app on a config for the scripted server; `extra` is more TOML for the file."""

    def make(
        *,
        extra: str = "",
        context_window: int = 16_000,
        output_reserve: int = 2_000,
        **args: object,
    ) -> tuple[CtxChatApp, Notes]:
        config = write_config(
            tmp_path / "home",
            server.base_url,
            context_window=context_window,
            output_reserve=output_reserve,
            extra=extra,
        )
        workspace = open_test_workspace(tmp_path / "home", config)
        workspaces.append(workspace)
        app = build_app(workspace, SessionOptions(**args))
        return app, Notes.attach(app)

    return make


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """`ctxchat ARGS --json` in-process on a home dir; returns its JSON output."""

    def on(home: Path, config: str) -> Callable[..., Awaitable[dict[str, Any]]]:
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name, raising=False)
        for name, value in harness.test_env(home, Path(config)).items():
            monkeypatch.setenv(name, value)

        async def run(*args: str) -> dict[str, Any]:
            # The command runs its own event loop, as it does from a shell.
            code = await asyncio.to_thread(main, list(args))
            out = capsys.readouterr().out
            assert code == 0, out
            data: dict[str, Any] = json.loads(out)
            return data

        return run

    return on
