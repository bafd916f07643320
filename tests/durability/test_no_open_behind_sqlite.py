"""Nothing of ctxchat opens its open database (or its -wal, -shm) by path: closing such a
descriptor drops every SQLite lock the process holds on the file (POSIX locks are per
process), and another process then deletes the write-ahead log the app still writes to."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ctxchat.chat.attachments import AttachRefused
from ctxchat.chat.history_import import import_file
from ctxchat.chat.session import ChatSession
from ctxchat.cli.exits import EXIT_USAGE
from ctxchat.cli.main import main
from ctxchat.core.tokens import counter_for_model
from ctxchat.store import Store, StoreError

OPEN_AND_CLOSE = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])  # what a command run beside the app does
conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
conn.close()
"""

FIND = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
print(conn.execute("SELECT count(*) FROM messages WHERE content = ?", (sys.argv[2],)).fetchone()[0])
"""

FILES = ("", "-wal", "-shm")


@pytest.fixture
def app_store(store: Store) -> Store:
    """The app's connection, with one message written (so the log exists)."""
    conversation = store.conversations.create_conversation("between processes")
    store.messages.add_message(
        conversation.id, "user", "alpha one", tokens=2, exact=True, encoding="o200k_base"
    )
    return store


def keeps_writes(store: Store) -> None:
    """A command run beside the app leaves the log alone, and what the app writes next is
    in the file for everyone."""
    path = store.path
    subprocess.run([sys.executable, "-c", OPEN_AND_CLOSE, str(path)], check=True)
    assert Path(f"{path}-wal").exists(), "another process deleted the log the app has open"
    conversation = store.conversations.list_conversations()[0]
    store.messages.add_message(
        conversation.id, "user", "bravo two", tokens=2, exact=True, encoding="o200k_base"
    )
    found = subprocess.run(
        [sys.executable, "-c", FIND, str(path), "bravo two"],
        check=True,
        capture_output=True,
        text=True,
    )
    assert found.stdout.strip() == "1"


@pytest.mark.parametrize("suffix", FILES)
def test_importing_the_open_database_is_refused_without_opening_it(
    app_store: Store, suffix: str
) -> None:
    target = Path(f"{app_store.path}{suffix}")
    refusals = []
    for source in (None, "llm"):
        with pytest.raises(StoreError) as refused:
            import_file(app_store, target, counter=counter_for_model("gpt-4o"), source=source)
        refusals.append(str(refused.value))
    keeps_writes(app_store)
    assert all("is ctxchat's own database" in refusal for refusal in refusals)


@pytest.mark.parametrize("suffix", FILES)
def test_attaching_the_open_database_is_refused_without_opening_it(
    app_store: Store, session: ChatSession, suffix: str
) -> None:
    with pytest.raises(AttachRefused) as refused:
        session.files.attach(f"{app_store.path}{suffix}")
    keeps_writes(app_store)
    assert "it is ctxchat's own database" in str(refused.value)


@pytest.mark.parametrize("suffix", FILES)
def test_an_export_is_never_written_over_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    database = tmp_path / "data" / "ctxchat.db"
    with Store.open(database) as store:
        conversation = store.conversations.create_conversation("kept")
        store.messages.add_message(
            conversation.id, "user", "alpha one", tokens=2, exact=True, encoding="o200k_base"
        )
        # The log and shared memory exist while a connection is open: export meanwhile.
        monkeypatch.setenv("CTXCHAT_CONFIG", str(tmp_path / "config.toml"))
        monkeypatch.setenv("CTXCHAT_DATA_DIR", str(database.parent))
        target = Path(f"{database}{suffix}")
        code = main(["export", str(conversation.id), "-o", str(target)])
        assert code == EXIT_USAGE
        assert "is ctxchat's own database; choose another file" in capsys.readouterr().err
        assert [m.content for m in store.messages.messages(conversation.id)] == ["alpha one"]
    with Store.open(database) as again:
        assert [m.content for m in again.messages.messages(conversation.id)] == ["alpha one"]
