"""Projects: named sets of conversations that share memory entries."""

from __future__ import annotations

import sqlite3
from typing import Literal

from ctxchat.store.conversations import require_conversation
from ctxchat.store.database import Database
from ctxchat.store.errors import InvalidValue, NotFound
from ctxchat.store.records import Project

_PROJECTS = """
    SELECT p.id, p.name, p.created_at,
           (SELECT count(*) FROM conversations c WHERE c.project_id = p.id),
           (SELECT count(*) FROM memory m WHERE m.project_id = p.id)
    FROM projects p
"""

EntriesOfDeleted = Literal["global", "delete"]
"""What deleting a project does with its entries: make them global, or delete them."""


def project_name(name: str) -> str:
    """A project's name as stored: one line, trimmed; refused when blank."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise InvalidValue("A project needs a name.")
    return cleaned


class Projects:
    """The projects table, and which project each conversation is in."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create_project(self, name: str) -> Project:
        """A new project; a name already taken (whatever its case) is refused."""
        name = project_name(name)
        with self._db.transaction() as conn:
            if find_project(conn, name) is not None:
                raise InvalidValue(f"There is already a project named “{name}”.")
            return read_project(conn, insert_project(conn, name, self._db.now()))

    def projects(self) -> list[Project]:
        """Every project, by name, with how many conversations and entries it has."""
        with self._db.reading() as conn:
            rows = conn.execute(_PROJECTS + " ORDER BY p.name COLLATE NOCASE").fetchall()
        return [Project(*row) for row in rows]

    def project_named(self, name: str) -> Project:
        """The project called `name` (any case); one clear error when there is none."""
        with self._db.reading() as conn:
            found = find_project(conn, project_name(name))
        if found is None:
            raise InvalidValue(f"There is no project named “{project_name(name)}”.")
        return found

    def get_project(self, project_id: int) -> Project:
        with self._db.reading() as conn:
            return read_project(conn, project_id)

    def move_to_project(self, conversation_id: int, project_id: int | None) -> None:
        """Put a conversation in a project (None: take it out of its project)."""
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            if project_id is not None:
                read_project(conn, project_id)
            conn.execute(
                "UPDATE conversations SET project_id = ? WHERE id = ?",
                (project_id, conversation_id),
            )

    def conversation_project(self, conversation_id: int | None) -> int | None:
        """The id of the project `conversation_id` is in (None: none, or no conversation)."""
        if conversation_id is None:
            return None
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT project_id FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        return None if row is None else row[0]

    def delete_project(self, project_id: int, *, entries: EntriesOfDeleted) -> None:
        """Delete a project; its conversations stay (in no project). Its entries become
        global (`entries="global"`) or are deleted with it (`"delete"`)."""
        with self._db.transaction() as conn:
            read_project(conn, project_id)
            if entries == "global":
                conn.execute(
                    "UPDATE memory SET project_id = NULL, updated_at = ? WHERE project_id = ?",
                    (self._db.now(), project_id),
                )
            # The schema's cascade deletes what entries are left; conversations are kept.
            conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))


def insert_project(conn: sqlite3.Connection, name: str, now: float) -> int:
    cursor = conn.execute("INSERT INTO projects (name, created_at) VALUES (?, ?)", (name, now))
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def find_project(conn: sqlite3.Connection, name: str) -> Project | None:
    row = conn.execute(_PROJECTS + " WHERE p.name = ? COLLATE NOCASE", (name,)).fetchone()
    return None if row is None else Project(*row)


def read_project(conn: sqlite3.Connection, project_id: int) -> Project:
    row = conn.execute(_PROJECTS + " WHERE p.id = ?", (project_id,)).fetchone()
    if row is None:
        raise NotFound("project", project_id)
    return Project(*row)
