"""Memory entries over time: supersession by key, restoring, hypothesis turns, the migration."""

from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.core.memory import MemoryKind
from ctxchat.store import InvalidValue, Store, StoredMessage, schema
from ctxchat.store.schema import SCHEMA_VERSION

Say = Callable[[int, str, str], StoredMessage]


def test_a_new_entry_on_the_same_key_supersedes_the_old_one(store: Store) -> None:
    old = store.memory.add_memory("fact", "The service runs on MySQL 8.", key="database")  # 1000
    new = store.memory.add_memory(
        "fact", "The service runs on PostgreSQL 16.", key="Database"
    )  # 1001
    kept = store.memory.get_memory(old.id)
    assert (kept.superseded_by, kept.superseded_at) == (new.id, 1001.0)
    assert kept.text == "The service runs on MySQL 8."
    assert not store.memory.get_memory(new.id).superseded
    assert [e.id for e in store.memory.list_memory()] == [old.id, new.id]


def test_the_same_key_in_another_scope_is_another_entry(store: Store) -> None:
    conversation = store.conversations.create_conversation().id
    shared = store.memory.add_memory("fact", "Editor: vim.", key="editor")
    store.memory.add_memory(
        "fact", "Editor here: emacs.", key="editor", conversation_id=conversation
    )
    assert not store.memory.get_memory(shared.id).superseded


def test_an_entry_marked_as_replacing_another_supersedes_it(store: Store) -> None:
    old = store.memory.add_memory("fact", "Deploys happen on Fridays.")
    new = store.memory.add_memory("fact", "Deploys happen on Mondays.", replaces=old.id)
    assert store.memory.get_memory(old.id).superseded_by == new.id


def test_a_new_version_of_an_excluded_entry_is_excluded_too(store: Store) -> None:
    old = store.memory.add_memory("constraint", "Budget: 5,000 EUR.", enabled=False)
    new = store.memory.add_memory("constraint", "Budget: 6,000 EUR.", replaces=old.id)
    assert not new.enabled
    included = store.memory.add_memory("fact", "Deploys on Fridays.")
    assert store.memory.add_memory("fact", "Deploys on Mondays.", replaces=included.id).enabled


def test_restoring_makes_the_old_entry_current_and_supersedes_its_replacement(
    store: Store,
) -> None:
    old = store.memory.add_memory("fact", "MySQL 8.", key="database")
    new = store.memory.add_memory("fact", "PostgreSQL 16.", key="database")
    restored = store.memory.restore_memory(old.id)
    assert not restored.superseded
    assert store.memory.get_memory(new.id).superseded_by == old.id
    with pytest.raises(InvalidValue, match="not superseded"):
        store.memory.restore_memory(old.id)


def test_deleting_the_replacement_makes_the_old_entry_current(store: Store) -> None:
    old = store.memory.add_memory("fact", "MySQL 8.", key="database")
    new = store.memory.add_memory("fact", "PostgreSQL 16.", key="database")
    store.memory.delete_memory(new.id)
    assert not store.memory.get_memory(old.id).superseded


def test_an_entry_records_the_user_turn_it_was_made_in(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation().id
    for text in ("one", "two", "three"):
        say(conversation, "user", text)
        say(conversation, "assistant", "ok")
    guess = store.memory.add_memory("hypothesis", "The slowdown comes from the ORM.")
    assert guess.turn == store.memory.user_turns() == 3
    say(conversation, "user", "four")
    assert store.memory.keep_hypothesis(guess.id).turn == 4


def test_becoming_a_hypothesis_starts_the_clock(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation().id
    fact = store.memory.add_memory("fact", "The ORM is slow.")
    say(conversation, "user", "one")
    say(conversation, "user", "two")
    assert store.memory.update_memory(fact.id, importance=6).turn == 0
    assert store.memory.update_memory(fact.id, kind=MemoryKind.HYPOTHESIS).turn == 2


def test_a_database_from_before_entries_knew_their_time_is_upgraded(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:5])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 5)
    with Store.open(db_path) as old:
        conversation = old.conversations.create_conversation("kept").id
        with old.transaction() as conn:
            # Written as that version did: this code's messages have columns it lacked.
            for text in ("one", "two"):
                conn.execute(
                    "INSERT INTO messages (conversation_id, role, content, status, created_at, "
                    "updated_at) VALUES (?, 'user', ?, 'complete', 1, 1)",
                    (conversation, text),
                )
            conn.execute(
                "INSERT INTO memory (kind, text, key, source, created_at, updated_at) "
                "VALUES ('hypothesis', 'Old guess.', 'cause', 'message:1', 5, 5)"
            )
    monkeypatch.undo()

    with Store.open(db_path) as store:
        (entry,) = store.memory.list_memory()
        assert (entry.text, entry.source, entry.superseded_by, entry.turn) == (
            "Old guess.",
            "message:1",
            None,
            2,  # the clock starts at the upgrade: no old hypothesis is flagged at once
        )
        newer = store.memory.add_memory("hypothesis", "Newer guess.", key="cause")
        assert store.memory.get_memory(entry.id).superseded_by == newer.id
        with store.reading() as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_supersession_provenance_and_waiting_survive_export_and_import(
    store: Store, say: Say, tmp_path: Path
) -> None:
    conversation = store.conversations.create_conversation("facts").id
    first = say(conversation, "user", "We use MySQL 8.").id
    say(conversation, "assistant", "Noted.")
    last = say(conversation, "user", "We moved to PostgreSQL 16.").id
    old = store.memory.add_memory(
        "fact", "MySQL 8.", key="database", conversation_id=conversation, source=f"message:{first}"
    )
    store.memory.add_memory(
        "fact",
        "PostgreSQL 16.",
        key="database",
        conversation_id=conversation,
        source=f"messages:{first}-{last}",
    )
    store.memory.add_memory("hypothesis", "The ORM is slow.", source="message:999")  # turn 2
    say(conversation, "user", "and later")  # the guess has waited 1 turn
    export = store.transfer.export_conversation(conversation)

    with Store.open(tmp_path / "other.db") as other:
        unrelated = other.conversations.create_conversation("first").id
        for _ in range(5):
            other.messages.add_message(unrelated, "user", "x", tokens=1, exact=True, encoding="x")
        imported = other.transfer.import_conversation(export)
        ids = [m.id for m in other.messages.messages(imported)]
        guess, was, now = other.memory.list_memory(conversation_id=imported)
        assert (was.text, was.source, was.superseded_by) == (
            "MySQL 8.",
            f"message:{ids[0]}",
            now.id,
        )
        assert was.superseded_at == store.memory.get_memory(old.id).superseded_at
        assert (now.source, now.superseded_by) == (f"messages:{ids[0]}-{ids[2]}", None)
        # A message that did not come along leaves "imported" as the entry's source.
        assert guess.source == "import"
        assert other.memory.user_turns() - guess.turn == 1
