"""Histories from other chat tools: which tool a file comes from, and its conversations read
one at a time in ctxchat's terms (see each tool's module for what becomes of what)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxchat.store.importers.fields import HistoryFormatError, NotJson
from ctxchat.store.importers.json_stream import JsonItems
from ctxchat.store.importers.labels import LABELS
from ctxchat.store.importers.records import ImportedAnswer, ImportedConversation, ImportedMessage

__all__ = [
    "CTXCHAT",
    "SOURCES",
    "HistoryFormatError",
    "HistorySource",
    "ImportedAnswer",
    "ImportedConversation",
    "ImportedMessage",
    "NotJson",
    "detect_source",
    "read_history",
]

CTXCHAT = "ctxchat"
"""ctxchat's own JSON export of one conversation (read by `Store.import_conversation`)."""

_SQLITE = b"SQLite format 3\x00"


@dataclass(frozen=True, slots=True)
class HistorySource:
    """A tool whose history ctxchat imports: the name `--from` takes, the name shown (in the
    conversation list), and what file it reads."""

    name: str
    label: str
    file: str


SOURCES: dict[str, HistorySource] = {
    source.name: source
    for source in (
        HistorySource("chatgpt", LABELS["chatgpt"], "ChatGPT's data export (conversations.json)"),
        HistorySource("claude", LABELS["claude"], "Claude.ai's data export (conversations.json)"),
        HistorySource("llm", LABELS["llm"], "simonw/llm's logs.db"),
        HistorySource("open-webui", LABELS["open-webui"], "an Open WebUI chat export (JSON)"),
        HistorySource(CTXCHAT, "ctxchat", "a ctxchat JSON export of one conversation"),
    )
}


def _reader(source: str) -> Callable[[Any], Iterator[ImportedConversation]]:
    """The reader of a JSON history (its module is imported when an import needs it: the
    app and the commands that import nothing do not pay for the four readers)."""
    if source == "chatgpt":
        from ctxchat.store.importers import chatgpt

        return chatgpt.conversations
    if source == "claude":
        from ctxchat.store.importers import claude

        return claude.conversations
    if source == "open-webui":
        from ctxchat.store.importers import open_webui

        return open_webui.conversations
    raise KeyError(source)


_KNOWN = (
    "ChatGPT's or Claude.ai's conversations.json, simonw/llm's logs.db, an Open WebUI chat "
    "export or a ctxchat export"
)


def detect_source(path: Path) -> str | None:
    """The name of the tool `path` comes from (a key of SOURCES); None for a list with no
    conversation in it. Raises HistoryFormatError for anything else, OSError when it cannot
    be read. Only the start of the file is read."""
    with path.open("rb") as file:
        if file.read(len(_SQLITE)) == _SQLITE:
            return _detect_database(path)
        file.seek(0)
        items = JsonItems(file)
        first = next(iter(items), None)
    if (
        items.top == "object"
        and isinstance(first, dict)
        and first.get("format") == "ctxchat-conversation"
    ):
        return CTXCHAT
    if first is None and items.top in ("array", "wrapped"):
        return None
    if isinstance(first, dict):
        if "mapping" in first:
            return "chatgpt"
        if "chat_messages" in first:
            return "claude"
        from ctxchat.store.importers import open_webui

        if open_webui.is_chat(first):
            return "open-webui"
        keys = ", ".join(list(first)[:6]) or "none"
        raise HistoryFormatError(
            f"it is none of the histories ctxchat knows ({_KNOWN}): its first item has the "
            f"keys {keys}"
        )
    raise HistoryFormatError(
        f"it is none of the histories ctxchat knows ({_KNOWN}): it holds no list of conversations"
    )


def _detect_database(path: Path) -> str:
    from ctxchat.store.importers import llm_logs

    try:
        with closing(llm_logs.open_read_only(path)) as conn:
            tables = llm_logs.tables_of(conn)
    except sqlite3.Error as error:
        raise HistoryFormatError(f"the SQLite database cannot be read ({error})") from None
    if llm_logs.is_llm_logs(tables):
        return "llm"
    raise HistoryFormatError(
        "it is an SQLite database, but not simonw/llm's logs.db (it has neither a "
        "'responses' nor a 'threads' table)"
    )


def read_history(path: Path, source: str) -> Iterator[ImportedConversation]:
    """The conversations of `path` as `source` (not ctxchat's own export), one at a time:
    the file is read as they are, never whole. Raises HistoryFormatError at the first place
    that does not fit, OSError when the file cannot be read."""
    if source == "llm":
        with path.open("rb") as file:
            if file.read(len(_SQLITE)) != _SQLITE:
                raise HistoryFormatError("it is not an SQLite database, so not llm's logs.db")
        from ctxchat.store.importers import llm_logs

        yield from llm_logs.conversations(path)
        return
    reader = _reader(source)
    with path.open("rb") as file:
        yield from reader(JsonItems(file))
