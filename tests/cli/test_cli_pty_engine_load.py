"""The real app on a terminal, quitting while a model file loads in the engine: it ends at
once, and the engine it was starting stops (it never runs on behind the user)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.engine.control import running_engine
from ctxchat.engine.files import bundled_model
from ctxchat.engine.state import start_lock

from ..engine_server import skip_reason
from .test_cli_pty import CTRL_Q, Terminal, wait_for

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)

F4 = b"\x1bOS"
HOME = b"\x1b[H"
DOWN = b"\x1b[B"


@pytest.fixture
def models(tmp_path: Path) -> Path:
    small = bundled_model()
    assert small is not None
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "my-model.gguf").symlink_to(small)
    return folder


@pytest.fixture
def terminal(home: Path, models: Path) -> Iterator[Terminal]:
    env = dict(os.environ, TERM="xterm-256color", CTXCHAT_MODELS_DIR=str(models))
    running = Terminal(env)
    try:
        wait_for(lambda: b"Write a message" in running.output, "the app drawn")
        yield running
    finally:
        running.close()


def pick_the_file(terminal: Terminal) -> None:
    """F4, then the model file: the first entry, past the profile and its server's model."""
    mark = terminal.mark()
    terminal.write(F4)
    wait_for(lambda: terminal.drew_since(mark, b"file my-model"), "the picker with the file")
    mark = terminal.mark()
    terminal.write(HOME + DOWN + DOWN + b"\r")
    loading, handed_back = b"Loading my-model", b"The model list is ready: f4 opens it"
    wait_for(
        lambda: terminal.drew_since(mark, loading) or terminal.drew_since(mark, handed_back),
        "the load, or the keys handed back",
    )
    if not terminal.drew_since(mark, loading):
        # The keys came before the picker, opened as the list came, was on screen: they
        # went back to the message, as typing does. F4 opens the list waiting, at once.
        mark = terminal.mark()
        terminal.write(F4)
        wait_for(lambda: terminal.drew_since(mark, b"file my-model"), "the picker again")
        mark = terminal.mark()
        terminal.write(HOME + DOWN + DOWN + b"\r")
        wait_for(lambda: terminal.drew_since(mark, loading), "the load on the jobs line")


def test_quitting_while_a_model_loads_ends_the_app_and_the_load(
    terminal: Terminal, home: Path
) -> None:
    engine = home / "data" / "engine"
    engine.mkdir(parents=True, exist_ok=True)
    # Another ctxchat is starting the engine: the load waits for it, as long as it takes.
    with start_lock(engine, 5):
        pick_the_file(terminal)
        terminal.write(CTRL_Q)
        wait_for(lambda: terminal.process.poll() is not None, "the app ended")
    assert terminal.process.returncode == 0
    assert running_engine(engine) is None
