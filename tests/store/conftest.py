"""Shared fixtures for store tests: a fresh database with a clock that ticks one second a call."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ctxchat.store import Store, StoredMessage, schema


class TickingClock:
    """Returns 1000.0, 1001.0, 1002.0, … so timestamps in assertions are exact."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start - 1

    def __call__(self) -> float:
        self.now += 1
        return self.now


@contextmanager
def store_before(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, migrations: int
) -> Iterator[Store]:
    """A database made by a ctxchat whose schema had only the first `migrations`; the
    current schema applies again once the block ends."""
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:migrations])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", migrations)
    try:
        with Store.open(db_path) as old:
            yield old
    finally:
        monkeypatch.undo()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "ctxchat.db"


@pytest.fixture
def clock() -> TickingClock:
    return TickingClock()


@pytest.fixture
def store(db_path: Path, clock: TickingClock) -> Iterator[Store]:
    with Store.open(db_path, clock=clock) as opened:
        yield opened


Say = Callable[[int, str, str], StoredMessage]


@pytest.fixture
def say(store: Store) -> Say:
    """Adds a complete message counted as one token per word plus 4 (exact values for tests)."""

    def add(conversation_id: int, role: str, content: str) -> StoredMessage:
        return store.messages.add_message(
            conversation_id,
            role,
            content,
            tokens=len(content.split()) + 4,
            exact=True,
            encoding="o200k_base",
        )

    return add
