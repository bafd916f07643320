"""Fixtures for the command line: private config and data dirs, and a scripted model server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxchat.cli.main import main
from ctxchat.testing.server import ScriptedModelServer

KEY = "sk-cli-secret-0123456789"


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=KEY) as running:
        yield running


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: ScriptedModelServer) -> Path:
    """A config pointing at the scripted server, data in a temp dir, no user env leaking in."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CTXCHAT_CONFIG", "CTXCHAT_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config.toml"
    config.write_text(
        'default_profile = "test"\n'
        "[profiles.test]\n"
        f'base_url = "{server.base_url}"\n'
        'model = "gpt-4o"\n'
        'api_key_env = "CTXCHAT_TEST_KEY"\n'
        "context_window = 8000\n"
        "output_reserve = 1000\n"
        "[context]\n"
        'system_prompt = "You are terse."\n'
        "min_recent = 4\n"
        "[summary]\n"
        "min_messages = 2\n"
    )
    monkeypatch.setenv("CTXCHAT_TEST_KEY", KEY)
    monkeypatch.setenv("COLUMNS", "200")  # tables unwrapped, so tests can find whole cells
    monkeypatch.setenv("CTXCHAT_CONFIG", str(config))
    monkeypatch.setenv("CTXCHAT_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(home: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run `ctxchat ARGS` in-process; returns (exit code, stdout, stderr)."""

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke
