"""A file that is not what it is taken for, or is damaged anywhere, is refused whole with one
line naming what is wrong; nothing of it is imported, even what came before the damage."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ctxchat.chat.history_import import import_file
from ctxchat.core.tokens import TokenCounter
from ctxchat.store import Store
from ctxchat.store.importers import HistoryFormatError

from .chatgpt_export import short, trip
from .claude_export import linear
from .conftest import write_json


def refusal(store: Store, counter: TokenCounter, path: Path, source: str | None = None) -> str:
    with pytest.raises(HistoryFormatError) as refused:
        import_file(store, path, counter=counter, source=source)
    assert store.conversations.list_conversations() == []
    message = str(refused.value)
    assert "\n" not in message
    return message


def damaged(change: str) -> list[dict[str, Any]]:
    bad = short("c3", "Third", "Three")
    if change == "mapping":
        bad["mapping"] = []
    elif change == "parts":
        bad["mapping"]["q"]["message"]["content"]["parts"] = "not a list"
    elif change == "time":
        bad["create_time"] = "last Tuesday"
    return [trip(), short("c2", "Second", "Two"), bad]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("mapping", "conversation 3 “Third”: mapping: expected an object, found a list"),
        (
            "parts",
            "conversation 3 “Third”: mapping['q'].message.content.parts: expected a list, "
            "found a string",
        ),
        ("time", "conversation 3 “Third”: create_time: 'last Tuesday' is not a time"),
    ],
)
def test_a_damaged_conversation_at_the_end_imports_nothing(
    store: Store, counter: TokenCounter, tmp_path: Path, change: str, said: str
) -> None:
    path = write_json(tmp_path / "conversations.json", damaged(change))
    message = refusal(store, counter, path)
    assert message == (
        f"{path} is not ChatGPT's data export (conversations.json) as ctxchat reads it: "
        f"{said}; nothing was imported"
    )


def test_a_file_cut_short_imports_nothing(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    path = tmp_path / "conversations.json"
    text = json.dumps([short("c1", "One", "1"), short("c2", "Two", "2")], indent=1)
    path.write_text(text[: len(text) * 3 // 4], encoding="utf-8")
    message = refusal(store, counter, path)
    assert "not valid JSON at line" in message and message.endswith("; nothing was imported")


def test_a_syntax_error_on_one_long_line_is_named_by_its_character(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes(b'[{"id": "c1", "mapping": {}}, {"title" "Trip"}]')
    assert refusal(store, counter, path) == (
        f"{path} is not ChatGPT's data export (conversations.json) as ctxchat reads it: "
        "not valid JSON at line 1 (character 40): Expecting ':' delimiter; nothing was imported"
    )


def test_a_file_of_another_tool_is_named_for_what_it_lacks(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    path = write_json(tmp_path / "conversations.json", [linear()])
    message = refusal(store, counter, path, "chatgpt")
    assert message.endswith("conversation 1: 'mapping' is missing; nothing was imported")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{"name": "settings"}', "it is none of the histories ctxchat knows"),
        (b'[{"prompt": "hi"}]', "its first item has the keys prompt"),
        (b"just words", "not valid JSON at line 1"),
        (b"", "the file is empty"),
        (b'[{"mapping": {}} \xff]', "not UTF-8"),
    ],
)
def test_an_unknown_file_is_one_line(
    store: Store, counter: TokenCounter, tmp_path: Path, content: bytes, said: str
) -> None:
    path = tmp_path / "mystery.json"
    path.write_bytes(content)
    message = refusal(store, counter, path)
    assert said in message


def test_a_database_of_another_program_is_named_so(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    message = refusal(store, counter, path)
    assert "an SQLite database, but not simonw/llm's logs.db" in message


def test_a_reply_with_an_unknown_sender_names_it(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    conversation = linear()
    conversation["chat_messages"][1]["sender"] = "robot"
    path = write_json(tmp_path / "conversations.json", [conversation])
    message = refusal(store, counter, path)
    assert "chat_messages[1].sender: 'robot' is neither human nor assistant" in message
