"""Kept token counts: by encoding and text digest, capped, and added to older databases."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.store import SCHEMA_VERSION, ReplyEnding, Store, StoredMessage, StoreError, schema
from ctxchat.store import counts as counts_module
from ctxchat.store import replies as replies_module

Say = Callable[[int, str, str], StoredMessage]


def test_counts_are_kept_per_encoding(store: Store) -> None:
    assert store.counts.kept_counts("o200k_base") == {}
    assert not store.counts.has_kept_counts("o200k_base")
    store.counts.keep_counts("o200k_base", {b"a" * 16: 5, b"b" * 16: 7})
    store.counts.keep_counts("cl100k_base", {b"a" * 16: 6})
    store.counts.keep_counts("o200k_base", {b"a" * 16: 5})  # kept again: no second row
    assert store.counts.kept_counts("o200k_base") == {b"a" * 16: 5, b"b" * 16: 7}
    assert store.counts.kept_counts("cl100k_base") == {b"a" * 16: 6}
    assert store.counts.has_kept_counts("o200k_base") and not store.counts.has_kept_counts(
        "estimate"
    )


def test_counts_survive_reopening(db_path: Path) -> None:
    with Store.open(db_path) as first:
        first.counts.keep_counts("o200k_base", {b"k" * 16: 3})
    with Store.open(db_path) as second:
        assert second.counts.kept_counts("o200k_base") == {b"k" * 16: 3}


def test_the_counts_kept_least_recently_go_first(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(counts_module, "KEPT_COUNTS", 3)
    store.counts.keep_counts("cl100k_base", {b"other": 1})
    prompt = {b"p" * 16: 9}  # in every plan: kept again each time
    for index in range(5):
        store.counts.keep_counts("o200k_base", {**prompt, bytes([index]) * 16: index})
    assert store.counts.kept_counts("o200k_base") == {**prompt, b"\x03" * 16: 3, b"\x04" * 16: 4}
    assert store.counts.kept_counts("cl100k_base") == {b"other": 1}  # each encoding has its cap


def test_keeping_waits_only_briefly_for_another_writer(db_path: Path, store: Store) -> None:
    other = sqlite3.connect(db_path)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError):  # given up on, not waited out: bench/store.py times it
            store.counts.keep_counts("o200k_base", {b"k" * 16: 1})
    finally:
        other.rollback()
        other.close()
    store.conversations.create_conversation("writes wait as long as before")


def test_nothing_to_keep_writes_nothing(store: Store) -> None:
    store.counts.keep_counts("o200k_base", {})
    assert store.counts.kept_counts("o200k_base") == {}


def test_a_database_from_before_kept_counts_gets_the_table(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:4])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 4)
    with Store.open(db_path) as old:
        conversation = old.conversations.create_conversation("kept").id
    monkeypatch.undo()
    with Store.open(db_path) as store:
        assert store.conversations.get_conversation(conversation).title == "kept"
        store.counts.keep_counts("o200k_base", {b"x" * 16: 2})
        assert store.counts.kept_counts("o200k_base") == {b"x" * 16: 2}
        with store.reading() as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


KEPT = {b"d" * 16: 4}


def test_deleting_or_editing_a_text_forgets_every_kept_count(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation("c").id
    first = say(conversation, "user", "kept words")
    message = say(conversation, "user", "secret words")
    entry = store.memory.add_memory("fact", "Lives in Berlin.", conversation_id=conversation)
    changes: list[Callable[[], object]] = [
        lambda: store.memory.update_memory(entry.id, text="Lives in Paris."),
        lambda: store.messages.update_message_content(
            message.id, "other words", tokens=4, exact=True, encoding="o200k_base"
        ),
        lambda: store.memory.delete_memory(entry.id),
        lambda: store.messages.delete_messages_after(conversation, first.id),
        lambda: store.conversations.delete_conversation(conversation),
    ]
    for change in changes:
        store.counts.keep_counts("o200k_base", KEPT)
        change()
        assert store.counts.kept_counts("o200k_base") == {}, change


def test_a_streaming_reply_and_new_texts_keep_the_counts(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation("c").id
    store.counts.keep_counts("o200k_base", KEPT)
    say(conversation, "user", "a question")
    store.memory.add_memory("fact", "A new entry.")
    reply = store.replies.start_reply(conversation, model="m")
    store.replies.save_partial(reply.id, "part of ")
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(content="part of the answer", tokens=4, exact=True, encoding="o200k_base"),
    )
    assert store.counts.kept_counts("o200k_base") == KEPT


def test_editing_an_abandoned_reply_forgets_the_counts(
    store: Store, say: Say, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation = store.conversations.create_conversation("c").id
    say(conversation, "user", "q")
    reply = store.replies.start_reply(conversation, model="m")
    store.replies.save_partial(reply.id, "secret partial text")
    monkeypatch.setattr(replies_module, "writer_alive", lambda *args: False)
    assert store.replies.interrupt_abandoned_replies() == 1  # marked interrupted, owner kept
    store.counts.keep_counts("o200k_base", KEPT)
    store.messages.update_message_content(
        reply.id, "edited", tokens=3, exact=True, encoding="o200k_base"
    )
    assert store.counts.kept_counts("o200k_base") == {}


def test_changes_that_leave_a_text_as_it_was_keep_the_counts(store: Store) -> None:
    entry = store.memory.add_memory("fact", "Lives in Berlin.")
    store.counts.keep_counts("o200k_base", KEPT)
    store.memory.update_memory(entry.id, text="Lives in Berlin.", pinned=True, importance=9)
    assert store.counts.kept_counts("o200k_base") == KEPT
