"""Opening the database: creation, pragmas, migrations, and files that are not ours or broken."""

import os
import sqlite3
import stat
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from ctxchat.store import (
    SCHEMA_VERSION,
    CorruptDatabase,
    NewerSchema,
    Store,
    StoreError,
    move_aside,
    schema,
)
from ctxchat.store.schema import APPLICATION_ID


def pragma(store_or_path: Store | Path, name: str) -> object:
    if isinstance(store_or_path, Store):
        with store_or_path.reading() as conn:
            return conn.execute(f"PRAGMA {name}").fetchone()[0]
    conn = sqlite3.connect(store_or_path)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


def test_open_creates_a_private_directory_and_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "ctxchat.db"
    with Store.open(path):
        pass
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_open_sets_the_connection_up_as_designed(store: Store) -> None:
    assert pragma(store, "journal_mode") == "wal"
    assert pragma(store, "synchronous") == 2  # FULL
    assert pragma(store, "busy_timeout") == 10_000
    assert pragma(store, "foreign_keys") == 1
    assert pragma(store, "secure_delete") == 1
    assert pragma(store, "auto_vacuum") == 2  # incremental
    assert pragma(store, "user_version") == SCHEMA_VERSION
    assert pragma(store, "application_id") == APPLICATION_ID


def test_reopening_keeps_data_and_runs_no_migration(db_path: Path) -> None:
    with Store.open(db_path) as store:
        conversation = store.conversations.create_conversation("kept")
    with Store.open(db_path) as store:
        assert store.conversations.get_conversation(conversation.id).title == "kept"
        with store.reading() as conn:
            assert schema.migrate(conn, db_path) == 0
    assert pragma(db_path, "user_version") == SCHEMA_VERSION


def test_an_empty_file_becomes_a_database(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.touch()
    with Store.open(db_path) as store:
        assert store.conversations.list_conversations() == []


def test_migrations_run_in_one_transaction(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = (*schema.MIGRATIONS, ("CREATE TABLE extra (x)", "THIS IS NOT SQL"))
    monkeypatch.setattr(schema, "MIGRATIONS", broken)
    monkeypatch.setattr(schema, "SCHEMA_VERSION", len(broken))
    with pytest.raises(StoreError) as caught:
        Store.open(db_path)
    assert str(caught.value) == f'Cannot open {db_path}: near "THIS": syntax error.'
    conn = sqlite3.connect(db_path)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    assert version == 0
    assert "conversations" not in tables
    assert "extra" not in tables


def test_a_newer_database_is_refused_with_a_clear_message(db_path: Path) -> None:
    with Store.open(db_path):
        pass
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
    conn.commit()
    conn.close()
    with pytest.raises(NewerSchema) as caught:
        Store.open(db_path)
    assert str(caught.value) == (
        f"{db_path} was written by a newer version of ctxchat (database schema "
        f"{SCHEMA_VERSION + 3}, this version understands up to {SCHEMA_VERSION}); "
        "upgrade ctxchat to open it."
    )
    assert (caught.value.found, caught.value.supported) == (SCHEMA_VERSION + 3, SCHEMA_VERSION)


def test_another_programs_database_is_left_alone(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    before = db_path.read_bytes()
    with pytest.raises(StoreError) as caught:
        Store.open(db_path)
    assert str(caught.value) == (
        f"{db_path} is an SQLite database of another program, not ctxchat's; "
        "choose another data directory."
    )
    # Byte-identical: not even its journal mode was switched, and no WAL files were left.
    assert db_path.read_bytes() == before
    assert sorted(p.name for p in db_path.parent.iterdir()) == [db_path.name]
    conn = sqlite3.connect(db_path)
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    conn.close()
    assert tables == ["photos"]


def write_random_bytes(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 40)


def write_text(path: Path) -> None:
    path.write_text("[profile]\nmodel = 'gpt-4o'\n" * 50)


def write_truncated_database(path: Path) -> None:
    with Store.open(path) as store:
        conversation = store.conversations.create_conversation("big")
        for index in range(300):
            store.messages.add_message(
                conversation.id,
                "user",
                f"message {index} " * 50,
                tokens=1,
                exact=True,
                encoding="o200k_base",
            )
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.truncate(size // 2)


def write_cut_header(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + b"\x10\x00")


@pytest.mark.parametrize(
    ("damage", "detail"),
    [
        (write_random_bytes, "it is not an SQLite database"),
        (write_text, "it is not an SQLite database"),
        (write_cut_header, "the file is cut short"),
        (write_truncated_database, None),
    ],
    ids=["random-bytes", "text-file", "cut-header", "truncated-database"],
)
def test_a_damaged_file_is_reported_by_name_and_kept(
    damage: Callable[[Path], None], detail: str | None, db_path: Path
) -> None:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    damage(db_path)
    before = db_path.read_bytes()
    with pytest.raises(CorruptDatabase) as caught:
        Store.open(db_path)
    message = str(caught.value)
    assert message.startswith(f"{db_path} is not a readable ctxchat database (")
    assert message.endswith(
        "). Run `ctxchat db move-aside` to rename it to ctxchat.db.corrupt-<timestamp> and "
        "start a new one, or restore it from a backup."
    )
    if detail is not None:
        assert caught.value.detail == detail
    assert caught.value.path == db_path
    # Nothing is moved or changed without the user's consent.
    assert db_path.read_bytes() == before
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["ctxchat.db"]


def test_move_aside_renames_the_file_and_its_log_then_a_new_database_opens(
    db_path: Path,
) -> None:
    db_path.parent.mkdir(parents=True)
    write_text(db_path)
    Path(f"{db_path}-wal").write_bytes(b"old log")
    with pytest.raises(CorruptDatabase):
        Store.open(db_path)
    moved = move_aside(db_path, now=datetime(2025, 3, 4, 5, 6, 7))
    assert moved == db_path.with_name("ctxchat.db.corrupt-20250304-050607")
    assert moved.read_text().startswith("[profile]")
    assert Path(f"{moved}-wal").read_bytes() == b"old log"
    assert not db_path.exists()
    # A second damaged file in the same second does not overwrite the first.
    write_text(db_path)
    again = move_aside(db_path, now=datetime(2025, 3, 4, 5, 6, 7))
    assert again == db_path.with_name("ctxchat.db.corrupt-20250304-050607-2")
    with Store.open(db_path) as store:
        assert store.conversations.list_conversations() == []


def test_a_directory_where_the_file_should_be_is_explained(db_path: Path) -> None:
    db_path.mkdir(parents=True)
    with pytest.raises(StoreError) as caught:
        Store.open(db_path)
    assert str(caught.value) == (f"{db_path} is not a file; choose another place for the database.")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_explained(db_path: Path) -> None:
    with Store.open(db_path):
        pass
    db_path.chmod(0o000)
    try:
        with pytest.raises(StoreError) as caught:
            Store.open(db_path)
    finally:
        db_path.chmod(0o600)
    assert str(caught.value) == f"Cannot open {db_path}: Permission denied."


def test_damage_found_while_running_is_reported_too(store: Store, db_path: Path) -> None:
    # SQLite finds damage only when it reads a damaged page; what the store must do then is
    # turn its error into CorruptDatabase naming the file, inside reads and writes alike.
    with pytest.raises(CorruptDatabase) as caught, store.reading():
        raise sqlite3.DatabaseError("database disk image is malformed")
    assert caught.value.path == db_path
    assert caught.value.detail == "database disk image is malformed"
    with pytest.raises(CorruptDatabase), store.transaction():
        raise sqlite3.DatabaseError("file is not a database")
    # The failed transaction was rolled back and the store still works.
    assert store.conversations.create_conversation("after").id == 1


def test_a_programming_error_is_not_disguised(store: Store) -> None:
    with pytest.raises(sqlite3.OperationalError), store.reading() as conn:
        conn.execute("SELECT nothing FROM nowhere")


def test_a_database_from_before_error_details_is_upgraded_in_place(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:3])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 3)
    with Store.open(db_path) as old:
        conversation = old.conversations.create_conversation("kept").id
        with old.transaction() as conn:
            conn.execute(
                "INSERT INTO messages (conversation_id, role, content, tokens, exact, encoding, "
                "status, error, created_at, updated_at) "
                "VALUES (?, 'assistant', '', 0, 1, 'o200k_base', 'failed', 'It failed.', 1, 1)",
                (conversation,),
            )
    monkeypatch.undo()

    with Store.open(db_path) as store:
        (failed,) = store.messages.messages(conversation)
        assert (failed.error, failed.error_detail) == ("It failed.", None)
    assert pragma(db_path, "user_version") == SCHEMA_VERSION
