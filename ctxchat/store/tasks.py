"""A conversation's task state: its goal and its steps, kept whole in one row."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ctxchat.core.task import TaskItem, TaskState, one_line
from ctxchat.store.conversations import require_conversation
from ctxchat.store.database import Database
from ctxchat.store.records import storable


def task_from_row(goal: Any, steps: Any) -> TaskState:
    """The task as stored; a value that is not one reads as nothing, so one bad row stops no
    command."""
    try:
        loaded = json.loads(steps) if isinstance(steps, str) else []
    except json.JSONDecodeError:
        loaded = []
    steps = loaded if isinstance(loaded, list) else []
    items = tuple(
        TaskItem(one_line(step["text"]), bool(step.get("done", False)))
        for step in steps
        if isinstance(step, dict) and isinstance(step.get("text"), str) and one_line(step["text"])
    )
    return TaskState(one_line(goal) if isinstance(goal, str) else "", items)


def steps_json(task: TaskState) -> str:
    return json.dumps(
        [{"text": item.text, "done": item.done} for item in task.items], ensure_ascii=False
    )


class Tasks:
    """The tasks table: one task state per conversation (none stored is an empty task)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def task(self, conversation_id: int) -> TaskState:
        with self._db.reading() as conn:
            require_conversation(conn, conversation_id)
            return _read_task(conn, conversation_id)

    def save_task(self, conversation_id: int, task: TaskState) -> TaskState:
        """Store `task` as the conversation's whole task state; an empty one removes the row."""
        with self._db.transaction() as conn:
            require_conversation(conn, conversation_id)
            if task.empty:
                conn.execute("DELETE FROM tasks WHERE conversation_id = ?", (conversation_id,))
            else:
                conn.execute(
                    "INSERT INTO tasks (conversation_id, goal, steps, updated_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (conversation_id) DO UPDATE SET "
                    "goal = excluded.goal, steps = excluded.steps, updated_at = excluded.updated_at",
                    (
                        conversation_id,
                        storable(task.goal),
                        storable(steps_json(task)),
                        self._db.now(),
                    ),
                )
            return _read_task(conn, conversation_id)


def _read_task(conn: sqlite3.Connection, conversation_id: int) -> TaskState:
    row = conn.execute(
        "SELECT goal, steps FROM tasks WHERE conversation_id = ?", (conversation_id,)
    ).fetchone()
    return TaskState() if row is None else task_from_row(*row)
