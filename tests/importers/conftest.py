"""Fixtures for importing other tools' histories: a fresh store, the counter imports count
with, and a way to write an export where a test wants it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxchat.chat.history_import import FileImport, import_file
from ctxchat.core.tokens import TokenCounter, counter_for_model
from ctxchat.store import Store


@pytest.fixture(scope="session")
def counter() -> TokenCounter:
    """gpt-4o's own tokenizer (tiktoken's o200k_base)."""
    return counter_for_model("gpt-4o")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "data" / "ctxchat.db") as opened:
        yield opened


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def imported(store: Store, counter: TokenCounter, folder: Path, data: Any) -> FileImport:
    """`data` written as an export in `folder` and imported, the tool recognised."""
    return import_file(store, write_json(folder / "conversations.json", data), counter=counter)
