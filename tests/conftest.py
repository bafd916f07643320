"""Fixtures for every test directory: the engine (a real model on this machine)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxchat.engine.state import EngineState

from .engine_server import own_engine


@pytest.fixture(scope="session")
def engine_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EngineState]:
    """One engine for the test run (per xdist worker): `.base_url`, `.key`, `.root`,
    `.model`, `.n_ctx`. Skipped, with the reason, where the engine is not installed."""
    with own_engine(tmp_path_factory.mktemp("engine")) as state:
        yield state
