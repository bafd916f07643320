"""simonw/llm's `logs.db`, opened read-only (SQLite's `mode=ro`): it is never changed.

llm 0.32 and later keep each conversation as a thread (`threads`) whose messages form a
chain (`messages`, their `parts`), with each model call in `turns` (model, usage, time); a
fork is a thread of its own, and is imported as a conversation of its own. Older versions
kept `conversations` and `responses` (one row per prompt and reply, with the system prompt,
fragments, attachments, tool calls and results beside it); a database used by both keeps
both, and a conversation found in both is read from its thread.

A system prompt becomes a system message where it is first given and where it changes;
fragments are put back into the prompt they were part of; tool calls and results become
part of the reply; reasoning becomes the reply's reasoning; attachments become placeholders;
the usage llm recorded is kept as the server's count of the reply.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctxchat.store.importers.fields import HistoryFormatError, epoch
from ctxchat.store.importers.labels import LABELS
from ctxchat.store.importers.pieces import (
    Piece,
    branch_messages,
    join,
    placeholder,
    tool_call,
    tool_output,
)
from ctxchat.store.importers.records import ImportedConversation

LABEL = LABELS["llm"]
THREAD_TABLES = frozenset({"threads", "messages", "parts", "turns"})


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write to `path` (SQLite refuses any change)."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def tables_of(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def is_llm_logs(tables: set[str]) -> bool:
    return "responses" in tables or tables >= THREAD_TABLES


def conversations(path: Path) -> Iterator[ImportedConversation]:
    """Every conversation in the database: threads first, then the older ones."""
    try:
        with closing(open_read_only(path)) as conn:
            tables = tables_of(conn)
            if not is_llm_logs(tables):
                raise HistoryFormatError(
                    "this SQLite database is not simonw/llm's logs.db: it has neither a "
                    "'responses' nor a 'threads' table"
                )
            threads: set[str] = set()
            if tables >= THREAD_TABLES:
                for conversation in _threads(conn, tables):
                    threads.add(conversation.origin_id)
                    yield conversation
            if "responses" in tables:
                yield from _legacy(conn, tables, threads)
    except sqlite3.Error as error:
        raise HistoryFormatError(f"the database cannot be read ({error})") from None


def _threads(conn: sqlite3.Connection, tables: set[str]) -> Iterator[ImportedConversation]:
    rows = conn.execute(
        "SELECT id, name, tip_message_hash, datetime_utc FROM threads "
        "WHERE tip_message_hash IS NOT NULL ORDER BY datetime_utc, id"
    ).fetchall()
    for thread in rows:
        chain = [
            (row["hash"], row["role"])
            for row in conn.execute(
                """
                WITH RECURSIVE chain(hash, parent_hash, role, depth) AS (
                    SELECT hash, parent_hash, role, 0 FROM messages WHERE hash = ?
                    UNION ALL
                    SELECT m.hash, m.parent_hash, m.role, c.depth + 1
                    FROM messages m JOIN chain c ON m.hash = c.parent_hash
                    WHERE c.depth < 1000000
                )
                SELECT hash, role FROM chain ORDER BY depth DESC
                """,
                (thread["tip_message_hash"],),
            )
        ]
        place = {hash_: at for at, (hash_, _) in enumerate(chain)}
        started = epoch(thread["datetime_utc"], f"thread {thread['id']}.datetime_utc")
        # Each message is as old as the first call that sent or wrote it; each reply has the
        # model and usage of the call that ended with it.
        times: dict[int, float] = {}
        calls: dict[int, sqlite3.Row] = {}
        last = started
        timed = 0
        for turn in conn.execute(
            "SELECT * FROM turns WHERE thread_id = ? ORDER BY datetime_utc, id", (thread["id"],)
        ):
            moment = epoch(turn["datetime_utc"], f"turn {turn['id']}.datetime_utc")
            tip = place.get(turn["tip_message_hash"])
            if tip is not None:
                calls[tip] = turn
            reach = tip if tip is not None else place.get(turn["parent_message_hash"], -1)
            if moment is not None:
                last = moment
                times.update((at, moment) for at in range(timed, reach + 1))
                timed = max(timed, reach + 1)
        fragments = _Fragments(conn)
        pieces = []
        for at, (hash_, role) in enumerate(chain):
            parts = conn.execute(
                "SELECT type, tool_name, text, payload FROM parts WHERE message_hash = ? "
                "ORDER BY position",
                (hash_,),
            ).fetchall()
            turn = calls.get(at)
            pieces.append(
                _thread_piece(role, parts, fragments, conn, tables, times.get(at, started), turn)
            )
        messages = branch_messages(pieces, [], "")
        models = [m.model for m in messages if m.model]
        # The thread is written after its first call has begun.
        moments = [moment for moment in (started, *times.values()) if moment is not None]
        yield ImportedConversation(
            str(thread["id"]),
            str(thread["name"] or ""),
            messages,
            min(moments, default=None),
            last,
            models[-1] if models else None,
        )


def _thread_piece(
    role: str,
    parts: list[sqlite3.Row],
    fragments: _Fragments,
    conn: sqlite3.Connection,
    tables: set[str],
    created: float | None,
    turn: sqlite3.Row | None,
) -> Piece:
    texts: list[str] = []
    thinking: list[str] = []
    results: list[str] = []
    for part in parts:
        payload = _json(part["payload"])
        text = part["text"] if part["text"] is not None else fragments.text(payload)
        kind = part["type"]
        if kind == "text":
            texts.append(text)
        elif kind == "reasoning":
            thinking.append(text)
        elif kind == "tool_call":
            texts.append(tool_call(part["tool_name"] or "", payload.get("arguments", {})))
        elif kind == "tool_result":
            output = payload.get("output")
            results.append(tool_output(part["tool_name"] or "", str(output or "")))
        elif kind == "attachment":
            attachment = payload.get("attachment")
            ids = [attachment.get("id")] if isinstance(attachment, dict) else []
            texts.extend(_attachments(conn, tables, ids))
        else:
            texts.append(placeholder(str(kind).replace("_", " ")))
    if role in ("user", "tool") and results and not any(t.strip() for t in texts):
        role, texts = "tool", results
    else:
        texts = results + texts
    model = None
    usage: tuple[int | None, int | None] = (None, None)
    if turn is not None and role == "assistant":
        model = turn["resolved_model"] or turn["model"]
        usage = (turn["input_tokens"], turn["output_tokens"])
    return Piece(
        role,
        join(*texts),
        join(*thinking),
        created,
        model,
        prompt_tokens=usage[0],
        completion_tokens=usage[1],
    )


class _Fragments:
    """Fragment texts by id, read once each."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._known: dict[int, str] = {}

    def content(self, fragment_id: int) -> str:
        if fragment_id not in self._known:
            row = self._conn.execute(
                "SELECT content FROM fragments WHERE id = ?", (fragment_id,)
            ).fetchone()
            self._known[fragment_id] = "" if row is None else str(row[0] or "")
        return self._known[fragment_id]

    def text(self, payload: Mapping[str, Any]) -> str:
        """A part's text kept as literals and fragment references (`text_ref`)."""
        if isinstance(payload.get("text"), str):
            return str(payload["text"])
        pieces = payload.get("text_ref")
        if not isinstance(pieces, list):
            return ""
        return "".join(
            str(piece.get("literal", ""))
            if "literal" in piece
            else self.content(int(piece.get("fragment", 0)))
            for piece in pieces
            if isinstance(piece, dict)
        )


def _json(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _attachments(conn: sqlite3.Connection, tables: set[str], ids: list[Any]) -> list[str]:
    if "attachments" not in tables:
        return [placeholder("attachment") for _ in ids]
    found = []
    for attachment_id in ids:
        row = conn.execute(
            "SELECT type, path, url FROM attachments WHERE id = ?", (attachment_id,)
        ).fetchone()
        kind = str((row["type"] if row else "") or "")
        name = str((row["path"] or row["url"] or "") if row else "")
        label = next((k for k in ("image", "audio", "video") if kind.startswith(k)), "file")
        found.append(placeholder(label, name.rsplit("/", 1)[-1]))
    return found


def _legacy(
    conn: sqlite3.Connection, tables: set[str], threads: set[str]
) -> Iterator[ImportedConversation]:
    names = (
        {
            str(row["id"]): (row["name"], row["model"])
            for row in conn.execute("SELECT id, name, model FROM conversations")
        }
        if "conversations" in tables
        else {}
    )
    groups = conn.execute(
        "SELECT conversation_id, min(datetime_utc) AS started, max(datetime_utc) AS ended "
        "FROM responses GROUP BY conversation_id ORDER BY started, conversation_id"
    ).fetchall()
    for group in groups:
        key = str(group["conversation_id"])
        if key in threads:
            continue
        name, model = names.get(key, (None, None))
        pieces: list[Piece] = []
        system_before = ""
        for row in conn.execute(
            "SELECT * FROM responses WHERE conversation_id IS ? ORDER BY datetime_utc, id",
            (group["conversation_id"],),
        ):
            columns = row.keys()
            created = epoch(row["datetime_utc"], f"response {row['id']}.datetime_utc")
            response_id = row["id"]
            system = join(
                *_fragments_of(conn, tables, "system_fragments", response_id),
                str(row["system"] or ""),
            )
            if system and system != system_before:
                pieces.append(Piece("system", system, created_at=created))
            system_before = system or system_before
            pieces.extend(
                Piece("tool", tool_output(str(name_ or ""), str(output or "")), created_at=created)
                for name_, output in _rows(
                    conn, tables, "tool_results", "name, output", response_id
                )
            )
            # As llm put them together: fragments, then the prompt, a line apart.
            prompt = join(
                "\n".join(
                    [
                        *_fragments_of(conn, tables, "prompt_fragments", response_id),
                        *([str(row["prompt"])] if row["prompt"] else []),
                    ]
                ),
                *_legacy_attachments(conn, tables, response_id),
            )
            pieces.append(Piece("user", prompt, created_at=created))
            calls = [
                tool_call(str(name_ or ""), _json_value(arguments))
                for name_, arguments in _rows(
                    conn, tables, "tool_calls", "name, arguments", response_id
                )
            ]
            reasoning = str(row["reasoning"] or "") if "reasoning" in columns else ""
            resolved = row["resolved_model"] if "resolved_model" in columns else None
            pieces.append(
                Piece(
                    "assistant",
                    join(str(row["response"] or ""), *calls),
                    reasoning,
                    created,
                    resolved or row["model"],
                    prompt_tokens=row["input_tokens"] if "input_tokens" in columns else None,
                    completion_tokens=row["output_tokens"] if "output_tokens" in columns else None,
                )
            )
        messages = branch_messages(pieces, [], "")
        yield ImportedConversation(
            key,
            str(name or ""),
            messages,
            epoch(group["started"], f"conversation {key}"),
            epoch(group["ended"], f"conversation {key}"),
            model,
        )


def _rows(
    conn: sqlite3.Connection, tables: set[str], table: str, columns: str, response_id: object
) -> list[tuple[Any, ...]]:
    if table not in tables:
        return []
    return [
        tuple(row)
        for row in conn.execute(
            f"SELECT {columns} FROM {table} WHERE response_id = ? ORDER BY id", (response_id,)
        )
    ]


def _fragments_of(
    conn: sqlite3.Connection, tables: set[str], table: str, response_id: object
) -> list[str]:
    if table not in tables or "fragments" not in tables:
        return []
    return [
        str(row[0] or "")
        for row in conn.execute(
            f"SELECT f.content FROM {table} p JOIN fragments f ON f.id = p.fragment_id "
            f'WHERE p.response_id = ? ORDER BY p."order"',
            (response_id,),
        )
    ]


def _legacy_attachments(
    conn: sqlite3.Connection, tables: set[str], response_id: object
) -> list[str]:
    if "prompt_attachments" not in tables:
        return []
    ids = [
        row[0]
        for row in conn.execute(
            'SELECT attachment_id FROM prompt_attachments WHERE response_id = ? ORDER BY "order"',
            (response_id,),
        )
    ]
    return _attachments(conn, tables, ids)


def _json_value(text: object) -> object:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
