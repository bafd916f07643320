"""What the processes of the side-by-side test acknowledged, and the database checked against
it once every process of a round is gone."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

ECHO = "You said: "
"""The scripted server's reply starts so, followed by the last message it was sent."""


@dataclass
class Ledger:
    """Every write acknowledged so far (a message shown as sent in the app, a command that
    exited 0), and every import tried (kept whole or not at all, acknowledged or not)."""

    messages: set[str] = field(default_factory=set)
    memory: set[str] = field(default_factory=set)
    imports: dict[tuple[str, ...], bool] = field(default_factory=dict)  # titles: acknowledged
    summaries: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def acknowledged_messages(self) -> set[str]:
        with self.lock:
            return set(self.messages)

    def acknowledged_titles(self) -> set[str]:
        with self.lock:
            return {title for titles, ok in self.imports.items() if ok for title in titles}


def check_database(database: Path, ledger: Ledger) -> list[str]:
    """What is wrong with the database against the ledger (empty when nothing is): run with
    no other process on it."""
    problems: list[str] = []
    conn = sqlite3.connect(database)
    try:
        integrity = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        if integrity != ["ok"]:
            problems.append(f"integrity_check: {integrity[:5]}")
        contents: dict[str, int] = {}
        for (content,) in conn.execute("SELECT content FROM messages WHERE role = 'user'"):
            contents[content] = contents.get(content, 0) + 1
        for text in sorted(ledger.messages):
            if contents.get(text, 0) != 1:
                problems.append(
                    f"acknowledged message {text!r} stored {contents.get(text, 0)} times"
                )
        problems += _stray_replies(conn)
        memory = {text for (text,) in conn.execute("SELECT text FROM memory")}
        problems += [f"acknowledged memory {t!r} missing" for t in sorted(ledger.memory - memory)]
        titles = {title for (title,) in conn.execute("SELECT title FROM conversations")}
        for wanted, acknowledged in ledger.imports.items():
            there = [title for title in wanted if title in titles]
            if acknowledged and len(there) != len(wanted):
                problems.append(f"acknowledged import {wanted} has only {there}")
            if there and len(there) != len(wanted):
                problems.append(f"an import was kept in part: {there} of {wanted}")
        versions = {version for (version,) in conn.execute("SELECT id FROM summaries")}
        problems += [
            f"acknowledged summary {v} missing" for v in sorted(ledger.summaries - versions)
        ]
    finally:
        conn.close()
    return problems


def _stray_replies(conn: sqlite3.Connection) -> list[str]:
    """One history: every reply of ctxchat's own conversations answers a message stored
    before it there (the server echoes it; a reply cut by a kill is the start of one), so a
    reply stored apart from the message it was asked with shows up here."""
    asked: dict[int, list[str]] = {}
    stray = []
    for conversation, role, content in conn.execute(
        "SELECT m.conversation_id, m.role, m.content FROM messages m "
        "JOIN conversations c ON c.id = m.conversation_id WHERE c.origin IS NULL ORDER BY m.id"
    ):
        if role == "user":
            asked.setdefault(conversation, []).append(ECHO + content)
        elif role == "assistant" and not any(
            echo.startswith(content) for echo in asked.get(conversation, [])
        ):
            stray.append(f"reply {content[:60]!r} answers no message before it")
    return stray


def export_holds(text: str, wanted: set[str]) -> list[str]:
    """The acknowledged messages a JSON export of the conversation lacks."""
    data = json.loads(text)
    shown = {message.get("content") for message in data.get("messages", [])}
    return sorted(wanted - shown)
