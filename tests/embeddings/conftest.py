"""Fixtures for semantic recall: the real packaged encoder (loaded once) and a fresh store.

Tests that need the `embeddings` extra skip, saying so, when it is not installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ctxchat.embeddings.availability import REQUIRED
from ctxchat.store import Store

if TYPE_CHECKING:
    from ctxchat.embeddings.encoder import MiniLMEncoder


@pytest.fixture(scope="session")
def encoder() -> MiniLMEncoder:
    for module in REQUIRED:
        pytest.importorskip(module, reason=f"the embeddings extra is not installed ({module})")
    from ctxchat.embeddings.encoder import MiniLMEncoder

    return MiniLMEncoder.load()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "ctxchat.db") as opened:
        yield opened


AddMessage = Callable[..., int]


@pytest.fixture
def add(store: Store) -> AddMessage:
    """Adds a complete message to a conversation and returns its id."""

    def add_message(conversation: int, text: str, role: str = "user") -> int:
        return store.messages.add_message(
            conversation, role, text, tokens=5, exact=False, encoding="e"
        ).id

    return add_message
