"""Export a conversation as JSON-ready data and import it back, exactly, under new ids."""

from __future__ import annotations

import bisect
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ctxchat.core.files import FilePart
from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryEntry
from ctxchat.core.plan import ContextPlan
from ctxchat.core.summary_loss import LostDetail
from ctxchat.store.attachments import Attachment, Attachments, parts_json
from ctxchat.store.conversations import Conversations
from ctxchat.store.database import Database
from ctxchat.store.errors import StoreError
from ctxchat.store.export_check import describe_problems, export_problems
from ctxchat.store.memory import (
    Memory,
    count_user_turns,
    insert_memory,
    switch_off,
    valid_kind,
)
from ctxchat.store.messages import Messages, check_role
from ctxchat.store.plans import Plans
from ctxchat.store.projects import find_project, insert_project, project_name, read_project
from ctxchat.store.records import StoredMessage, SummaryVersion
from ctxchat.store.summaries import Summaries, insert_summary
from ctxchat.store.tasks import Tasks, steps_json, task_from_row
from ctxchat.store.variants import ANSWER_FIELDS, ReplyVariant, Variants

EXPORT_FORMAT = "ctxchat-conversation"
EXPORT_VERSION = 1

_MESSAGE_FIELDS = (
    "id",
    "parent_id",
    "role",
    "content",
    "reasoning",
    "tokens",
    "exact",
    "encoding",
    "model",
    "status",
    "finish_reason",
    "error",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "estimated_prompt_tokens",
    "created_at",
    "updated_at",
    "error_detail",
    "excluded",
    "billing",
)
# Absent from older exports.
_OPTIONAL_MESSAGE_FIELDS = frozenset({"error_detail", "excluded", "billing"})
_ATTACHMENT_FIELDS = (
    "id",
    "path",
    "name",
    "content",
    "digest",
    "size",
    "mtime",
    "tokens",
    "encoding",
    "part_tokens",
    "attached_at",
    "read_at",
)
_SUMMARY_FIELDS = (
    "id",
    "version",
    "text",
    "first_message_id",
    "last_message_id",
    "strategy",
    "model",
    "tokens",
    "edited",
    "note",
    "created_at",
)
_MEMORY_FIELDS = (
    "id",
    "kind",
    "text",
    "key",
    "pinned",
    "importance",
    "source",
    "enabled",
    "tags",
    "created_at",
    "updated_at",
    "superseded_by",
    "superseded_at",
)


def _message_dict(message: StoredMessage) -> dict[str, Any]:
    data = {name: getattr(message, name) for name in _MESSAGE_FIELDS}
    data["status"] = message.status.value
    return data


def _attachment_dict(attachment: Attachment) -> dict[str, Any]:
    data = {name: getattr(attachment, name) for name in _ATTACHMENT_FIELDS}
    data["parts"] = [
        [p.number, p.first_line, p.last_line, p.start, p.end, p.tokens] for p in attachment.parts
    ]
    return data


def _variant_dict(variant: ReplyVariant, plan: ContextPlan | None) -> dict[str, Any]:
    data = variant.to_dict()
    del data["id"]
    data["plan"] = None if plan is None else plan.to_dict()
    return data


def _summary_dict(summary: SummaryVersion) -> dict[str, Any]:
    data = {name: getattr(summary, name) for name in _SUMMARY_FIELDS}
    data["strategy"] = summary.strategy.value
    data["cut"] = summary.cut
    data["lost"] = [item.to_dict() for item in summary.lost]
    data["reviewed"] = summary.reviewed
    data["faults"] = list(summary.faults)
    data["waiting"] = summary.waiting
    return data


def _lost_items(summary: Mapping[str, Any], messages: IdMap) -> list[LostDetail]:
    """A summary's loss report, its message ids renumbered (absent from older exports)."""
    return [
        replace(item, message_id=messages.one(item.message_id))
        for item in map(LostDetail.from_dict, summary.get("lost", ()))
    ]


def _memory_dict(entry: MemoryEntry, turns_now: int) -> dict[str, Any]:
    data = {name: getattr(entry, name) for name in _MEMORY_FIELDS}
    data["kind"] = entry.kind.value
    data["tags"] = list(entry.tags)
    # Turn numbers are the exporting store's; how long a hypothesis waited travels well.
    data["turns_waited"] = max(0, turns_now - entry.turn)
    return data


class IdMap:
    """Old ids to new ones; ranges map to the new ids of the messages inside them."""

    def __init__(self) -> None:
        self.ids: dict[int, int] = {}
        self._sorted: list[int] = []

    def add(self, old: int, new: int) -> None:
        self.ids[old] = new
        self._sorted = []

    def one(self, old: int) -> int:
        return self.ids.get(old, old)

    def span(self, first: int, last: int) -> tuple[int, int]:
        """The new ids of the first and last message within [first, last]."""
        if not self._sorted:
            self._sorted = sorted(self.ids)
        start = bisect.bisect_left(self._sorted, first)
        end = bisect.bisect_right(self._sorted, last) - 1
        if start > end:
            return first, last
        return self.ids[self._sorted[start]], self.ids[self._sorted[end]]


def remap_ref(
    ref: str, messages: IdMap, memory: Mapping[int, int], files: Mapping[int, int] = {}
) -> str:
    """A plan's reference to a message, a run of messages, a memory entry or an attached file
    (`file:3`, a part `file:3#2`, a run of parts `file:3#2-5`), renumbered."""
    kind, _, rest = ref.partition(":")
    if kind == "file":
        number, mark, part = rest.partition("#")
        if number.isdecimal():
            return f"file:{files.get(int(number), int(number))}{mark}{part}"
    if kind == "message" and rest.isdecimal():
        return f"message:{messages.one(int(rest))}"
    if kind == "messages":
        first, _, last = rest.partition("-")
        if first.isdecimal() and last.isdecimal():
            new_first, new_last = messages.span(int(first), int(last))
            return f"messages:{new_first}-{new_last}"
    if kind == "memory" and rest.isdecimal():
        return f"memory:{memory.get(int(rest), int(rest))}"
    return ref


def _remap_plan(
    plan: dict[str, Any], messages: IdMap, memory: Mapping[int, int], files: Mapping[int, int]
) -> ContextPlan:
    data = json.loads(json.dumps(plan))  # a deep copy we may change
    for layer in data["layers"]:
        for item in (*layer["items"], *layer["left_out"]):
            item["ref"] = remap_ref(item["ref"], messages, memory, files)
    for message in data["messages"]:
        message["ref"] = remap_ref(message["ref"], messages, memory, files)
    return ContextPlan.from_dict(data)


def _remap_source(source: str, messages: IdMap) -> str:
    """A memory entry's source, pointing at the imported messages; "import" when the
    messages it names did not come along (a global entry from another conversation)."""
    kind, _, rest = source.partition(":")
    if kind == "message" and rest.isdecimal():
        new = messages.ids.get(int(rest))
        return "import" if new is None else f"message:{new}"
    if kind == "messages":
        first, _, last = rest.partition("-")
        if first.isdecimal() and last.isdecimal():
            low, high = int(first), int(last)
            if not any(low <= old <= high for old in messages.ids):
                return "import"
            new_first, new_last = messages.span(low, high)
            return f"messages:{new_first}-{new_last}"
    return source


class Transfer:
    """Whole conversations in and out."""

    def __init__(
        self,
        db: Database,
        *,
        conversations: Conversations,
        messages: Messages,
        summaries: Summaries,
        plans: Plans,
        variants: Variants,
        memory: Memory,
        tasks: Tasks,
        attachments: Attachments,
    ) -> None:
        self._db = db
        self._conversations = conversations
        self._messages = messages
        self._summaries = summaries
        self._plans = plans
        self._variants = variants
        self._memory = memory
        self._tasks = tasks
        self._attachments = attachments

    def export_conversation(self, conversation_id: int) -> dict[str, Any]:
        """Everything about one conversation as JSON-ready data: its messages with all their
        fields, summary versions, reply plans, its own memory and (apart) the global memory."""
        with self._db.reading() as conn:
            conversation = self._conversations.get_conversation(conversation_id)
            active = self._summaries.active_summary(conversation_id)
            messages = self._messages.messages(conversation_id)
            # Only replies have plans: look up which, rather than asking for every message.
            planned = {
                row[0]
                for row in conn.execute(
                    "SELECT p.message_id FROM reply_plans p JOIN messages m "
                    "ON m.id = p.message_id WHERE m.conversation_id = ?",
                    (conversation_id,),
                )
            }
            plans = []
            for message in messages:
                plan = self._plans.load_plan(message.id) if message.id in planned else None
                if plan is not None:
                    plans.append({"message_id": message.id, "plan": plan.to_dict()})
            variants = [
                _variant_dict(variant, self._variants.load_variant_plan(variant.id))
                for message in messages
                if message.role == "assistant"
                for variant in self._variants.variants(message.id)
            ]
            memory = self._memory.list_memory(conversation_id=conversation_id)
            project = (
                None
                if conversation.project_id is None
                else read_project(conn, conversation.project_id)
            )
            turns = count_user_turns(conn)
            summaries = self._summaries.summaries(conversation_id)
            task = self._tasks.task(conversation_id)
            attachments = self._attachments.attachments(conversation_id)
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "conversation": {
                "id": conversation.id,
                "title": conversation.title,
                "model": conversation.model,
                "profile": conversation.profile,
                "chosen_profile": conversation.chosen_profile,
                "chosen_model": conversation.chosen_model,
                "preset": conversation.preset,
                "system_prompt": conversation.system_prompt,
                "project": None if project is None else project.name,
                "created_at": conversation.created_at,
                "updated_at": conversation.updated_at,
                "active_summary_version": None if active is None else active.version,
            },
            "messages": [_message_dict(m) for m in messages],
            "summaries": [_summary_dict(s) for s in summaries],
            "plans": plans,
            "variants": variants,
            "memory": [_memory_dict(e, turns) for e in memory if e.conversation_id is not None],
            "global_memory": [
                {**_memory_dict(e, turns), "off_here": conversation_id in e.off_in}
                for e in memory
                if e.scope == "global"
            ],
            "project_memory": [
                {**_memory_dict(e, turns), "off_here": conversation_id in e.off_in}
                for e in memory
                if e.scope == "project"
            ],
            "task": {"goal": task.goal, "steps": json.loads(steps_json(task))},
            "attachments": [_attachment_dict(a) for a in attachments],
        }

    def import_conversation(self, data: Mapping[str, Any]) -> int:
        """Add an exported conversation under new ids; returns its id.

        Ids inside it (message parents, summary ranges, plan references, memory sources) are
        renumbered. A global memory entry already present (same kind, key and text) is
        reused rather than duplicated.
        """
        if data.get("format") != EXPORT_FORMAT:
            raise StoreError("This is not a ctxchat conversation export.")
        version = data.get("version")
        if not isinstance(version, int) or version > EXPORT_VERSION:
            raise StoreError(
                f"This export has format version {version}; this ctxchat reads up to "
                f"{EXPORT_VERSION}. Upgrade ctxchat to import it."
            )
        # Checked whole before the first write: a bad value never reaches the database, where
        # it would break later commands rather than this one.
        problems = export_problems(data)
        if problems:
            raise StoreError(
                f"The export does not match ctxchat's format, so nothing was imported: "
                f"{describe_problems(problems)}."
            )
        try:
            with self._db.transaction() as conn:
                return self._import(conn, data)
        except (KeyError, TypeError, ValueError, AttributeError, sqlite3.IntegrityError) as exc:
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"The export is damaged or incomplete ({exc!r}).") from exc

    def _import(self, conn: sqlite3.Connection, data: Mapping[str, Any]) -> int:
        source = data["conversation"]
        cursor = conn.execute(
            "INSERT INTO conversations (title, model, profile, chosen_profile, chosen_model, "
            "preset, system_prompt, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                source["title"],
                source["model"],
                source["profile"],
                # Absent from exports made before a conversation remembered its model, its
                # preset and its own system prompt.
                source.get("chosen_profile"),
                source.get("chosen_model"),
                source.get("preset"),
                source.get("system_prompt"),
                source["created_at"],
                source["updated_at"],
            ),
        )
        assert cursor.lastrowid is not None
        conversation_id = cursor.lastrowid

        messages = IdMap()
        for message in sorted(data["messages"], key=lambda m: int(m["id"])):
            row = {
                name: message.get(name) if name in _OPTIONAL_MESSAGE_FIELDS else message[name]
                for name in _MESSAGE_FIELDS[1:]
            }
            parent = row["parent_id"]
            row["parent_id"] = None if parent is None else messages.ids.get(parent)
            row["exact"] = int(row["exact"])
            row["excluded"] = int(bool(row["excluded"]))
            check_role(row["role"])
            MessageStatus(row["status"])
            cursor = conn.execute(
                f"INSERT INTO messages (conversation_id, {', '.join(row)}) "
                f"VALUES (?{', ?' * len(row)})",
                (conversation_id, *row.values()),
            )
            assert cursor.lastrowid is not None
            messages.add(int(message["id"]), cursor.lastrowid)

        memory: dict[int, int] = {}
        turns = count_user_turns(conn)
        # Absent from exports made before projects: the conversation is in none.
        project_id = self._import_project(conn, conversation_id, source.get("project"))
        shared: list[tuple[Any, int | None]] = [(entry, None) for entry in data["global_memory"]]
        shared += [(entry, project_id) for entry in data.get("project_memory", ())]
        for entry, project in shared:
            memory[entry["id"]] = self._import_memory(
                conn, entry, None, messages, turns, project_id=project
            )
            if entry.get("off_here"):
                switch_off(conn, memory[entry["id"]], conversation_id)
        for entry in data["memory"]:
            memory[entry["id"]] = self._import_memory(conn, entry, conversation_id, messages, turns)
        for entry in (*(entry for entry, _ in shared), *data["memory"]):
            self._import_supersession(conn, entry, memory)

        active_version = source["active_summary_version"]
        for summary in sorted(data["summaries"], key=lambda s: int(s["version"])):
            first, last = messages.span(summary["first_message_id"], summary["last_message_id"])
            summary_id = insert_summary(
                conn,
                conversation_id,
                summary["version"],
                summary["text"],
                first,
                last,
                summary["strategy"],
                summary["model"],
                summary["tokens"],
                summary["edited"],
                summary["note"],
                summary["created_at"],
                cut=bool(summary.get("cut", False)),
                lost=_lost_items(summary, messages),
                reviewed=bool(summary.get("reviewed", False)),
                faults=[str(fault) for fault in summary.get("faults", ())],
                waiting=bool(summary.get("waiting", False)),
            )
            if summary["version"] == active_version:
                conn.execute(
                    "UPDATE conversations SET active_summary_id = ? WHERE id = ?",
                    (summary_id, conversation_id),
                )

        # Absent from exports made before conversations had tasks and attached files.
        task = data.get("task")
        if isinstance(task, Mapping) and (task.get("goal") or task.get("steps")):
            self._tasks.save_task(
                conversation_id, task_from_row(task.get("goal", ""), json.dumps(task["steps"]))
            )
        files = {
            int(attachment["id"]): self._import_attachment(conn, conversation_id, attachment)
            for attachment in data.get("attachments", ())
        }
        for stored in data["plans"]:
            new_id = messages.ids[int(stored["message_id"])]
            self._plans.save_plan(new_id, _remap_plan(stored["plan"], messages, memory, files))
        # Absent from exports made before replies had variants.
        for variant in data.get("variants", ()):
            self._import_variant(conn, variant, messages, memory, files)
        return conversation_id

    @staticmethod
    def _import_attachment(
        conn: sqlite3.Connection, conversation_id: int, attachment: Mapping[str, Any]
    ) -> int:
        parts = [FilePart(*part) for part in attachment["parts"]]
        row = {name: attachment[name] for name in _ATTACHMENT_FIELDS[1:] if name != "part_tokens"}
        row["parts"] = parts_json(int(attachment["part_tokens"]), parts)
        cursor = conn.execute(
            f"INSERT INTO attachments (conversation_id, {', '.join(row)}) "
            f"VALUES (?{', ?' * len(row)})",
            (conversation_id, *row.values()),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    @staticmethod
    def _import_variant(
        conn: sqlite3.Connection,
        variant: Mapping[str, Any],
        messages: IdMap,
        memory: Mapping[int, int],
        files: Mapping[int, int],
    ) -> None:
        plan = variant["plan"]
        row = {name: variant[name] for name in ("change", "created_at", "updated_at")}
        row.update({name: variant.get(name) for name in ANSWER_FIELDS})
        row["exact"] = int(bool(row["exact"]))
        row["status"] = MessageStatus(row["status"]).value
        row["tokens"] = int(row["tokens"] or 0)
        row["content"] = str(row["content"] or "")
        row["reasoning"] = str(row["reasoning"] or "")
        row["encoding"] = str(row["encoding"] or "")
        row["plan"] = json.dumps(
            None if plan is None else _remap_plan(plan, messages, memory, files).to_dict(),
            ensure_ascii=False,
        )
        conn.execute(
            f"INSERT INTO reply_variants (reply_id, {', '.join(row)}) VALUES (?{', ?' * len(row)})",
            (messages.ids[int(variant["reply_id"])], *row.values()),
        )

    def _import_memory(
        self,
        conn: sqlite3.Connection,
        entry: Mapping[str, Any],
        conversation_id: int | None,
        messages: IdMap,
        turns_now: int,
        *,
        project_id: int | None = None,
    ) -> int:
        kind = valid_kind(entry["kind"]).value
        if conversation_id is None:
            row = conn.execute(
                "SELECT id FROM memory WHERE conversation_id IS NULL AND project_id IS ? "
                "AND kind = ? AND text = ? AND key IS ?",
                (project_id, kind, entry["text"], entry["key"]),
            ).fetchone()
            if row is not None:
                existing: int = row[0]
                return existing
        new_id = insert_memory(
            conn,
            (
                kind,
                entry["text"],
                entry["key"],
                int(entry["pinned"]),
                entry["importance"],
                conversation_id,
                _remap_source(entry["source"], messages),
                int(entry["enabled"]),
                json.dumps(list(entry["tags"]), ensure_ascii=False),
            ),
            entry["created_at"],
            entry["updated_at"],
            # Exports from before entries knew their time lack it: the clock starts now.
            turns_now - _turns_waited(entry.get("turns_waited")),
        )
        if project_id is not None:
            conn.execute("UPDATE memory SET project_id = ? WHERE id = ?", (project_id, new_id))
        return new_id

    def _import_project(
        self, conn: sqlite3.Connection, conversation_id: int, name: object
    ) -> int | None:
        """Put the imported conversation in the project of that name (made if missing)."""
        if not isinstance(name, str) or not name.strip():
            return None
        found = find_project(conn, project_name(name))
        project_id = (
            insert_project(conn, project_name(name), self._db.now()) if found is None else found.id
        )
        conn.execute(
            "UPDATE conversations SET project_id = ? WHERE id = ?", (project_id, conversation_id)
        )
        return project_id

    @staticmethod
    def _import_supersession(
        conn: sqlite3.Connection, entry: Mapping[str, Any], memory: Mapping[int, int]
    ) -> None:
        """Mark an imported entry superseded by the imported entry that replaced it."""
        newer = entry.get("superseded_by")
        if newer is None or memory.get(newer) is None or memory[newer] == memory[entry["id"]]:
            return
        conn.execute(
            "UPDATE memory SET superseded_by = ?, superseded_at = ? "
            "WHERE id = ? AND superseded_by IS NULL",
            (memory[newer], float(entry["superseded_at"] or 0.0), memory[entry["id"]]),
        )


def _turns_waited(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
