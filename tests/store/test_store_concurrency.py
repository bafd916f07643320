"""Two ctxchat processes on one database (the TUI and a CLI export, say): both work."""

import subprocess
import sys
import threading
from pathlib import Path

from ctxchat.store import ReplyEnding, ReplyWriter, Store

WRITER = """
import sys, time
from pathlib import Path
from ctxchat.store import Store

path, name, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)
with Store.open(path) as store:  # both open a database that does not exist yet
    conversation = store.conversations.create_conversation(name)
    for index in range(200):
        store.messages.add_message(conversation.id, "user", f"{name} {index}", tokens=index, exact=True,
                          encoding="o200k_base")
print("done", flush=True)
"""

READER = """
import sys, time
from pathlib import Path
from ctxchat.store import Store

path, go = Path(sys.argv[1]), Path(sys.argv[2])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)
while not path.exists():  # the writers create it
    time.sleep(0.001)
exports = 0
with Store.open(path) as store:
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        for info in store.conversations.list_conversations():
            store.transfer.export_conversation(info.id)
            exports += 1
print("exports", exports, flush=True)
"""


def test_two_processes_write_at_once_and_a_third_reads(tmp_path: Path) -> None:
    path = tmp_path / "data" / "ctxchat.db"
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("tui", "cli")
    ]
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(path), str(go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for child in (*children, reader):  # every interpreter started and waits at the line
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    go.touch()
    results = [child.communicate(timeout=60) for child in (*children, reader)]
    for child, (_, err) in zip((*children, reader), results, strict=True):
        assert child.returncode == 0, err
        assert "locked" not in err
    assert results[2][0].startswith("exports ")
    with Store.open(path) as store:
        conversations = {c.title: c for c in store.conversations.list_conversations()}
        assert sorted(conversations) == ["cli", "tui"]
        for name, info in conversations.items():
            contents = [m.content for m in store.messages.messages(info.id)]
            assert contents == [f"{name} {index}" for index in range(200)]
            assert info.tokens == sum(range(200))


def test_threads_share_one_store(store: Store) -> None:
    """The TUI's event loop and a worker thread may both use the store."""
    conversation = store.conversations.create_conversation()
    writer = ReplyWriter.start(store.replies, conversation.id, model="m", interval=0)
    errors: list[BaseException] = []

    def stream() -> None:
        try:
            for index in range(300):
                writer.append(f"{index} ")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def add_and_read() -> None:
        try:
            for index in range(100):
                store.memory.add_memory("fact", f"fact {index}")
                store.messages.messages(conversation.id)
                store.conversations.list_conversations("fact")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=stream), threading.Thread(target=add_and_read)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    reply = writer.close(
        ReplyEnding(
            content=writer.content, reasoning=writer.reasoning, tokens=1, exact=True, encoding="e"
        )
    )
    assert reply.content == "".join(f"{index} " for index in range(300))
    assert len(store.memory.list_memory()) == 100


OPEN_AND_CLOSE = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])  # what `ctxchat conversations` does beside the app
conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
conn.close()
"""

FIND = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
print(conn.execute("SELECT count(*) FROM messages WHERE content = ?", (sys.argv[2],)).fetchone()[0])
"""


def test_a_second_connection_in_the_process_keeps_the_first_ones_writes(tmp_path: Path) -> None:
    """The in-app import opens a connection of its own; a command run beside the app then
    must not take itself for the last process and delete the write-ahead log the app still
    writes to: what the app writes afterwards reaches the file."""
    path = tmp_path / "ctxchat.db"
    wal = Path(f"{path}-wal")
    app = Store.open(path)
    try:
        conversation = app.conversations.create_conversation("between processes")
        app.messages.add_message(
            conversation.id, "user", "alpha one", tokens=2, exact=True, encoding="o200k_base"
        )
        Store.open(path).close()  # the import's connection, opened and closed
        subprocess.run([sys.executable, "-c", OPEN_AND_CLOSE, str(path)], check=True)
        assert wal.exists(), "another process deleted the log the app has open"
        app.messages.add_message(
            conversation.id, "user", "bravo two", tokens=2, exact=True, encoding="o200k_base"
        )
        found = subprocess.run(
            [sys.executable, "-c", FIND, str(path), "bravo two"],
            check=True,
            capture_output=True,
            text=True,
        )
        assert found.stdout.strip() == "1"
    finally:
        app.close()
