"""Kept token counts: by encoding and text digest, capped, and added to older databases."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.store import SCHEMA_VERSION, Store, schema
from ctxchat.store import counts as counts_module


def test_counts_are_kept_per_encoding(store: Store) -> None:
    assert store.kept_counts("o200k_base") == {}
    assert not store.has_kept_counts("o200k_base")
    store.keep_counts("o200k_base", {b"a" * 16: 5, b"b" * 16: 7})
    store.keep_counts("cl100k_base", {b"a" * 16: 6})
    store.keep_counts("o200k_base", {b"a" * 16: 5})  # kept again: no second row
    assert store.kept_counts("o200k_base") == {b"a" * 16: 5, b"b" * 16: 7}
    assert store.kept_counts("cl100k_base") == {b"a" * 16: 6}
    assert store.has_kept_counts("o200k_base") and not store.has_kept_counts("estimate")


def test_counts_survive_reopening(db_path: Path) -> None:
    with Store.open(db_path) as first:
        first.keep_counts("o200k_base", {b"k" * 16: 3})
    with Store.open(db_path) as second:
        assert second.kept_counts("o200k_base") == {b"k" * 16: 3}


def test_only_the_newest_counts_are_kept(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(counts_module, "KEPT_COUNTS", 3)
    store.keep_counts("cl100k_base", {b"other": 1})
    for index in range(5):
        store.keep_counts("o200k_base", {bytes([index]) * 16: index})
    assert store.kept_counts("o200k_base") == {bytes([i]) * 16: i for i in (2, 3, 4)}
    assert store.kept_counts("cl100k_base") == {b"other": 1}  # each encoding has its cap


def test_nothing_to_keep_writes_nothing(store: Store) -> None:
    store.keep_counts("o200k_base", {})
    assert store.kept_counts("o200k_base") == {}


def test_a_database_from_before_kept_counts_gets_the_table(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:4])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 4)
    with Store.open(db_path) as old:
        conversation = old.create_conversation("kept").id
    monkeypatch.undo()
    with Store.open(db_path) as store:
        assert store.get_conversation(conversation).title == "kept"
        store.keep_counts("o200k_base", {b"x" * 16: 2})
        assert store.kept_counts("o200k_base") == {b"x" * 16: 2}
        with store.reading() as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
