"""Full-text search and stored embeddings: what recall reads from the store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ctxchat.core.recall import fts_query
from ctxchat.store import Store
from ctxchat.store.schema import MIGRATIONS, SCHEMA_VERSION

from .old_schema import insert_message


def add(store: Store, conversation: int, text: str, role: str = "user") -> int:
    return store.messages.add_message(
        conversation, role, text, tokens=5, exact=False, encoding="e"
    ).id


def test_other_conversations_are_searched_in_the_project_or_all(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        garden = store.projects.create_project("Garden").id
        here, there, outside = (
            store.conversations.create_conversation(t).id for t in ("here", "there", "out")
        )
        store.projects.move_to_project(here, garden)
        store.projects.move_to_project(there, garden)
        add(store, here, "The birdhouse needs a roof.")
        said = add(store, there, "The birdhouse is cedar.")
        excluded = add(store, there, "The birdhouse is pine, scratch that.")
        store.exclusions.set_excluded([excluded], True)
        away = add(store, outside, "A birdhouse for the neighbours.")
        query = fts_query(["birdhouse"])

        found = store.search.search_other_conversations(here, query, project_id=garden, newer=1)
        assert [(h.conversation_id, h.title) for h in found] == [(there, "there")]
        (hit,) = found
        assert hit.candidate.ref == f"conversation:{there}/message:{said}"
        assert hit.candidate.message_id is None  # no message of the conversation asking
        assert hit.candidate.age == 1 + away - said  # what was stored since, and `newer`
        everywhere = store.search.search_other_conversations(here, query, project_id=None)
        assert {h.candidate.ref for h in everywhere} == {
            f"conversation:{there}/message:{said}",
            f"conversation:{outside}/message:{away}",
        }


def test_search_ranks_by_bm25_within_one_conversation(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        one = store.conversations.create_conversation("one").id
        two = store.conversations.create_conversation("two").id
        a = add(store, one, "We picked PostgreSQL for the database.")
        add(store, one, "Lunch was fine.")
        b = add(store, one, "The database, the database: PostgreSQL databases everywhere.")
        add(store, two, "Another database conversation.")
        found = store.search.search_messages(one, fts_query(["database"]), limit=10)
        assert [c.message_id for c in found] == [b, a]
        assert all(c.bm25 < 0 for c in found)
        assert [c.age for c in found] == [0, 2]
        assert (
            store.search.search_messages(one, fts_query(["database"]), before_id=b)[0].message_id
            == a
        )
        # As a prefix, "database" counts the message with "databases" once more: an upper bound.
        assert store.search.term_documents(["database", "lunch", "nothing"]) == {
            "database": 4,
            "lunch": 1,
            "nothing": 0,
        }


def test_index_follows_edits_and_deletes(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        conversation = store.conversations.create_conversation().id
        message = add(store, conversation, "alpha words")
        store.messages.update_message_content(
            message, "beta words", tokens=3, exact=False, encoding="e"
        )
        assert store.search.search_messages(conversation, fts_query(["alpha"])) == []
        assert [c.message_id for c in store.search.search_messages(conversation, '"beta"')] == [
            message
        ]
        store.conversations.delete_conversation(conversation)
        assert store.search.term_documents(["beta"]) == {"beta": 0}


def test_a_version_1_database_is_migrated_and_indexed(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO conversations (title, created_at, updated_at) VALUES ('t', 0, 0)")
    conn.execute(
        "INSERT INTO messages (conversation_id, role, content, status, created_at, updated_at) "
        "VALUES (1, 'user', 'an old message about kubernetes', 'complete', 0, 0)"
    )
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        with store.reading() as reading:
            assert reading.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [c.content for c in store.search.search_messages(1, '"kubernetes"')] == [
            "an old message about kubernetes"
        ]


def test_embeddings_round_trip_and_go_stale_on_edit(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        conversation = store.conversations.create_conversation().id
        first = add(store, conversation, "first")
        second = add(store, conversation, "second")
        # Newest first: the likeliest to be asked about.
        assert store.search.messages_to_embed(conversation, "m") == [
            (second, "second"),
            (first, "first"),
        ]
        saved = store.search.save_embeddings(
            "m", [(first, "first", b"\x01\x02"), (second, "second", b"\x03\x04")]
        )
        assert saved == [first, second]
        assert store.search.messages_to_embed(conversation, "m") == []
        assert store.search.load_embeddings(conversation, "m") == [
            (first, b"\x01\x02"),
            (second, b"\x03\x04"),
        ]
        store.messages.update_message_content(
            first, "first, edited", tokens=3, exact=False, encoding="e"
        )
        assert store.search.messages_to_embed(conversation, "m") == [(first, "first, edited")]
        assert store.search.load_embeddings(conversation, "other-model") == []


def test_messages_a_query_wants_are_embedded_first(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        conversation = store.conversations.create_conversation().id
        ids = [add(store, conversation, f"message {i}") for i in range(5)]
        pending = store.search.messages_to_embed(conversation, "m", limit=3, first=[ids[1], ids[0]])
        assert pending == [(ids[1], "message 1"), (ids[0], "message 0"), (ids[4], "message 4")]


def test_a_vector_of_text_a_message_no_longer_holds_is_not_saved(tmp_path: Path) -> None:
    """The message was edited, or deleted, while its old text was being embedded."""
    with Store.open(tmp_path / "s.db") as store:
        conversation = store.conversations.create_conversation().id
        kept = add(store, conversation, "kept")
        edited = add(store, conversation, "before")
        deleted = add(store, conversation, "gone")
        read = store.search.messages_to_embed(conversation, "m")
        assert [message_id for message_id, _ in read] == [deleted, edited, kept]
        store.messages.update_message_content(edited, "after", tokens=1, exact=False, encoding="e")
        store.messages.delete_messages_after(conversation, edited)
        rows = [(message_id, content, b"\x01") for message_id, content in read]
        assert store.search.save_embeddings("m", rows) == [kept]
        assert store.search.load_embeddings(conversation, "m") == [(kept, b"\x01")]
        assert store.search.messages_to_embed(conversation, "m") == [(edited, "after")]


def test_each_model_keeps_its_own_vectors(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        conversation = store.conversations.create_conversation().id
        first = add(store, conversation, "first")
        assert store.search.save_embeddings("a", [(first, "first", b"\x01")]) == [first]
        assert store.search.save_embeddings("b", [(first, "first", b"\x02")]) == [first]
        assert store.search.load_embeddings(conversation, "a") == [(first, b"\x01")]
        assert store.search.load_embeddings(conversation, "b") == [(first, b"\x02")]
        assert store.search.messages_to_embed(conversation, "a") == []
        store.messages.update_message_content(first, "edited", tokens=1, exact=False, encoding="e")
        # An edit drops every model's vector of the old text.
        assert (
            store.search.load_embeddings(conversation, "a")
            == store.search.load_embeddings(conversation, "b")
            == []
        )


def test_vectors_stored_before_they_were_keyed_by_model_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxchat.store import schema

    path = tmp_path / "s.db"
    # The schema before migration 7, which keyed vectors by model.
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:6])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 6)
    with Store.open(path) as old:
        conversation = old.conversations.create_conversation().id
        first = insert_message(old, conversation, "user", "first")
        with old.transaction() as conn:
            conn.execute(
                "INSERT INTO message_embeddings (message_id, model, vector) VALUES (?, 'a', ?)",
                (first, b"\x01"),
            )
    monkeypatch.undo()
    with Store.open(path) as store:
        assert store.search.load_embeddings(conversation, "a") == [(first, b"\x01")]
        assert store.search.save_embeddings("b", [(first, "first", b"\x02")]) == [first]
        assert store.search.load_embeddings(conversation, "a") == [(first, b"\x01")]


def test_a_conversation_without_a_title_is_named_as_everywhere(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.db") as store:
        here, there = (
            store.conversations.create_conversation().id,
            store.conversations.create_conversation().id,
        )
        add(store, there, "The birdhouse is cedar.")
        (hit,) = store.search.search_other_conversations(
            here, fts_query(["birdhouse"]), project_id=None
        )
        assert hit.title == f"conversation {there}"
