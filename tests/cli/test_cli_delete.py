"""`ctxchat delete ID`: asks on a terminal, `--yes` for scripts; memory is kept unless
`--with-memory`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ctxchat.store import Store

from .conftest import Run
from .pty_process import PtyProcess


def porto(home: Path) -> tuple[int, int]:
    """A conversation “Trip to Porto” with two messages and a pinned entry of its own; its
    id and the entry's."""
    store = Store.open(home / "data" / "ctxchat.db")
    try:
        conversation = store.conversations.create_conversation("Trip to Porto").id
        user = store.messages.add_message(
            conversation, "user", "We fly to Porto.", tokens=6, exact=True, encoding="o200k_base"
        )
        store.messages.add_message(
            conversation, "assistant", "Noted.", tokens=3, exact=True, encoding="o200k_base"
        )
        entry = store.memory.add_memory(
            "fact",
            "Destination city is Porto.",
            pinned=True,
            conversation_id=conversation,
            source=f"message:{user.id}",
        )
        return conversation, entry.id
    finally:
        store.close()


def memory_row(home: Path, entry_id: int) -> dict[str, object] | None:
    store = Store.open(home / "data" / "ctxchat.db")
    try:
        entries = {e.id: e for e in store.memory.list_memory(include_all_scopes=True)}
        entry = entries.get(entry_id)
        if entry is None:
            return None
        return {"scope": entry.scope, "enabled": entry.enabled, "kept_from": entry.kept_from}
    finally:
        store.close()


def test_without_a_terminal_it_asks_for_yes_and_deletes_nothing(run: Run, home: Path) -> None:
    conversation, entry = porto(home)
    code, out, err = run("delete", str(conversation))
    assert code == 2
    assert out == ""
    assert "Delete “Trip to Porto” and its 2 messages? Pass --yes to delete without asking" in err
    assert len(err.strip().splitlines()) == 1
    assert "Trip to Porto" in run("conversations")[1]
    assert memory_row(home, entry) == {"scope": "conversation", "enabled": True, "kept_from": None}


def test_yes_deletes_and_keeps_its_memory_left_out(run: Run, home: Path) -> None:
    conversation, entry = porto(home)
    code, out, _ = run("delete", str(conversation), "--yes", "--json")
    assert code == 0
    assert json.loads(out) == {
        "deleted": conversation,
        "title": "Trip to Porto",
        "messages": 2,
        "memory": {"kept": [entry], "deleted": []},
    }
    assert "Trip to Porto" not in run("conversations")[1]
    assert memory_row(home, entry) == {
        "scope": "global",
        "enabled": False,
        "kept_from": "Trip to Porto",
    }
    listed = json.loads(run("memory", "list", "--json")[1])
    assert [e["text"] for e in listed] == ["Destination city is Porto."]


def test_with_memory_deletes_its_entries_too(run: Run, home: Path) -> None:
    conversation, entry = porto(home)
    code, out, _ = run("delete", str(conversation), "--yes", "--with-memory")
    assert code == 0
    assert out.strip() == "Deleted “Trip to Porto” and its 1 memory entry."
    assert memory_row(home, entry) is None


def test_on_a_terminal_it_names_the_memory_and_asks(home: Path) -> None:
    conversation, entry = porto(home)
    with PtyProcess(["delete", str(conversation)], dict(os.environ)) as process:
        process.read_until(lambda out: b"[y/N]" in out)
        shown = process.output.decode()
        assert "1 memory entry of its own: “Destination city is Porto.”" in shown
        assert "kept as global entries" in shown
        process.write(b"y\r")
        assert process.finish() == 0
    assert "Deleted “Trip to Porto”; kept its 1 memory entry" in process.output.decode()
    assert memory_row(home, entry) == {
        "scope": "global",
        "enabled": False,
        "kept_from": "Trip to Porto",
    }


def test_on_a_terminal_no_keeps_everything(home: Path, run: Run) -> None:
    conversation, _ = porto(home)
    with PtyProcess(["delete", str(conversation)], dict(os.environ)) as process:
        process.read_until(lambda out: b"[y/N]" in out)
        process.write(b"\r")
        assert process.finish() == 0
    assert "Nothing was deleted." in process.output.decode()
    assert "Trip to Porto" in run("conversations")[1]
