"""Whether the database takes writes, asked without waiting: False only while another
connection holds the write lock; asking changes nothing and never waits."""

from __future__ import annotations

from ctxchat.store import Store
from ctxchat.store.connection import BUSY_TIMEOUT_MS

from ..app.test_app_database_locked import write_lock_held


def test_false_only_while_another_connection_holds_the_write_lock(store: Store) -> None:
    assert store.takes_writes()
    with write_lock_held(store.path) as other:
        assert not store.takes_writes()
        other.execute("COMMIT")
    assert store.takes_writes()


def test_asking_inside_a_transaction_of_its_own_keeps_it(store: Store) -> None:
    conversation = store.conversations.create_conversation("kept")
    with store.transaction():
        assert store.takes_writes()
        store.conversations.rename_conversation(conversation.id, "renamed")
    assert store.conversations.get_conversation(conversation.id).title == "renamed"


def test_writes_still_wait_their_full_time_after_asking(store: Store) -> None:
    with write_lock_held(store.path):
        assert not store.takes_writes()
    with store.reading() as conn:
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    conversation = store.conversations.create_conversation("after")
    assert store.conversations.get_conversation(conversation.id).title == "after"
