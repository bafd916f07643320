"""Fixtures for every test directory: the engine (a real model on this machine)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.engine.state import EngineState

from .engine_server import own_engine


@pytest.fixture(scope="session")
def engine_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory of the test run's engine: a workspace whose env names it as
    CTXCHAT_ENGINE_DIR talks to `engine_server` through an `engine` profile."""
    return tmp_path_factory.mktemp("engine")


@pytest.fixture(scope="session")
def engine_server(engine_dir: Path) -> Iterator[EngineState]:
    """One engine for the test run (per xdist worker), serving SmolLM2 135M with a window
    of 4,096: `.base_url` (…/v1), `.root`, `.key` (send it as a Bearer token), `.model`,
    `.n_ctx`. Skipped, with the reason, where the engine is not installed."""
    with own_engine(engine_dir) as state:
        yield state
