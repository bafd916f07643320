"""Transactions: a batch commits once, an error undoes it all, nesting uses savepoints."""

import pytest

from ctxchat.store import Store


def titles(store: Store) -> list[str]:
    return sorted(c.title for c in store.conversations.list_conversations())


def test_a_batch_commits_together(store: Store) -> None:
    with store.transaction():
        store.conversations.create_conversation("a")
        store.conversations.create_conversation("b")
    assert titles(store) == ["a", "b"]


def test_an_error_undoes_the_whole_batch(store: Store) -> None:
    with pytest.raises(ZeroDivisionError), store.transaction():
        store.conversations.create_conversation("a")
        store.conversations.create_conversation("b")
        1 / 0  # noqa: B018
    assert titles(store) == []


def test_a_failed_inner_step_is_undone_alone(store: Store) -> None:
    with store.transaction():
        store.conversations.create_conversation("kept")
        with pytest.raises(ZeroDivisionError), store.transaction():
            store.conversations.create_conversation("undone")
            1 / 0  # noqa: B018
        store.conversations.create_conversation("also kept")
    assert titles(store) == ["also kept", "kept"]


def test_writing_inside_a_read_is_refused(store: Store) -> None:
    # A read upgraded to a write is what makes SQLite answer "database is locked".
    with pytest.raises(RuntimeError), store.reading():
        store.conversations.create_conversation("x")
    assert titles(store) == []


def test_a_fresh_database_has_nothing_to_recover(store: Store) -> None:
    assert store.interrupted_on_open == 0
