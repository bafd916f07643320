"""The real `ctxchat` app on a pseudo-terminal: a sentence typed into the memory panel
(after F6) is sent as a message, and no memory entry changes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path

import pytest

from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.core.tokens import count_message, counter_for_model
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

from .test_cli_pty import Terminal, rows, wait_for

F6 = b"\x1b[17~"
# Every key the panel once acted on (a e d p k s x + - n r c w g o, space, =).
SENTENCE = b"a quick note: pinned, kept, deleted + restored - six words, go = done"


def memory(database: Path) -> list[MemoryEntry]:
    store = Store.open(database)
    try:
        return store.memory.list_memory()
    finally:
        store.close()


@pytest.fixture
def database(home: Path) -> Path:
    """A short conversation and two memory entries in the app's store."""
    path = home / "data" / "ctxchat.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    store = Store.open(path)
    try:
        conversation = store.conversations.create_conversation(
            "short", model="gpt-4o", profile="test"
        ).id
        counter = counter_for_model("gpt-4o")
        for role, text in (("user", "Question one?"), ("assistant", "Answer one.")):
            tokens = count_message(counter, role, text).tokens
            store.messages.add_message(
                conversation, role, text, tokens=tokens, exact=True, encoding=counter.name
            )
        store.memory.add_memory(MemoryKind.FACT, "The service runs on PostgreSQL 16.", importance=5)
        store.memory.add_memory(MemoryKind.HYPOTHESIS, "The slowdown comes from the ORM.")
    finally:
        store.close()
    return path


@pytest.fixture
def terminal(database: Path) -> Iterator[Terminal]:
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
    running = Terminal(env, columns=120, rows=35)  # wide enough for the memory panel
    try:
        wait_for(lambda: b"Answer one." in running.output, "the conversation drawn")
        wait_for(lambda: b"2 entries" in running.output, "the memory panel drawn")
        yield running
    finally:
        running.close()


def test_a_sentence_typed_into_the_memory_panel_is_sent_and_changes_no_memory(
    terminal: Terminal, database: Path, server: ScriptedModelServer
) -> None:
    server.script("Noted.")
    before = [astuple(entry) for entry in memory(database)]
    mark = terminal.mark()
    terminal.write(F6)
    # The line about the highlighted entry shows only while the panel has focus.
    wait_for(lambda: terminal.drew_since(mark, b"typed by hand"), "the memory panel focused")
    terminal.write(SENTENCE + b"\r")  # in one write: the app gets the whole burst at once
    wait_for(
        lambda: [status for *_, status in rows(database, 2)] == ["complete", "complete"],
        "the message answered",
    )
    assert [(role, text) for _, role, text, _ in rows(database, 2)] == [
        ("user", SENTENCE.decode()),
        ("assistant", "Noted."),
    ]
    assert [astuple(entry) for entry in memory(database)] == before
