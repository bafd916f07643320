"""Variants of a reply: the same request asked again with a change, kept beside the reply."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxchat.core.history import MessageStatus
from ctxchat.core.plan import ContextPlan
from ctxchat.store.database import Database
from ctxchat.store.ending import ReplyEnding
from ctxchat.store.errors import InvalidValue, NotFound, StoreError
from ctxchat.store.messages import read_message
from ctxchat.store.plans import Plans, release_plans
from ctxchat.store.records import ReplyLength, StoredMessage, storable
from ctxchat.store.replies import this_writer, writer_alive

# The fields a reply and its variants share: what keeping a variant exchanges.
ANSWER_FIELDS = (*ReplyEnding.columns(), "model", "estimated_prompt_tokens")
_VARIANT_COLUMNS = "id, reply_id, change, created_at, updated_at, " + ", ".join(ANSWER_FIELDS)

# What the former reply says about itself once a variant was kept in its place.
FORMER_REPLY = "the reply before variant {id} was kept ({change})"
# What a replaced reply says about itself, by what replaced it.
REGENERATED = "the reply before it was regenerated"
RETRIED_INTERRUPTED = "the reply that was interrupted, before it was retried"
RETRIED_FAILED = "the reply that failed, before it was retried"
REGENERATED_CUT = "the reply cut at the output limit, before it was regenerated"


def replaced_as(reply: StoredMessage) -> str:
    """How a replaced reply is labelled among its successor's variants: a retry of a reply
    that stopped or failed is not a regeneration of a complete one."""
    if reply.status is MessageStatus.INTERRUPTED:
        return RETRIED_INTERRUPTED
    if reply.status is MessageStatus.FAILED:
        return RETRIED_FAILED
    if reply.finish_reason == "length":
        return REGENERATED_CUT
    return REGENERATED


@dataclass(frozen=True, slots=True)
class ReplyVariant:
    """Another answer to a reply's request, changed as `change` says (in words).

    The fields mean what they mean on `StoredMessage`; the plan is read with
    `load_variant_plan`.
    """

    id: int
    reply_id: int
    change: str
    created_at: float
    updated_at: float
    content: str
    reasoning: str
    tokens: int
    exact: bool
    encoding: str
    model: str | None
    status: MessageStatus
    finish_reason: str | None = None
    error: str | None = None
    error_detail: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    estimated_prompt_tokens: int | None = None
    billing: str | None = None

    @property
    def length(self) -> ReplyLength:
        """The answer's length in tokens: the server's count where it reported one."""
        return ReplyLength.of(self.tokens, self.completion_tokens)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (`ctxchat ask-again --json`, exports)."""
        data = {name: getattr(self, name) for name in _VARIANT_COLUMNS.split(", ")}
        data["status"] = self.status.value
        return data


def _variant_from_row(row: Any) -> ReplyVariant:
    values = dict(zip(_VARIANT_COLUMNS.split(", "), row, strict=True))
    values["exact"] = bool(values["exact"])
    values["status"] = MessageStatus(values["status"])
    return ReplyVariant(**values)


@dataclass(frozen=True, slots=True)
class FormerReply:
    """A reply about to be replaced (regenerated, retried): its answer, its plan and its
    variants, to be kept as variants of the reply that replaces it."""

    reply: StoredMessage
    plan: ContextPlan | None
    variants: tuple[tuple[ReplyVariant, ContextPlan | None], ...] = ()


class Variants:
    """The reply_variants table: start a variant, finish it, list them, keep one."""

    def __init__(self, db: Database, plans: Plans) -> None:
        self._db = db
        self._plans = plans

    def start_variant(
        self, reply_id: int, *, change: str, model: str | None, plan: ContextPlan
    ) -> ReplyVariant:
        """A variant of `reply_id` about to stream, with the plan (and request) it is sent as."""
        now = self._db.now()
        with self._db.transaction() as conn:
            reply = read_message(conn, reply_id)
            if reply.role != "assistant":
                raise InvalidValue(
                    f"Message {reply_id} is not a reply; only replies have variants."
                )
            cursor = conn.execute(
                "INSERT INTO reply_variants (reply_id, change, model, status, tokens, "
                "estimated_prompt_tokens, stream_owner, plan, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
                (
                    reply_id,
                    storable(change),
                    model,
                    MessageStatus.STREAMING.value,
                    plan.tokens,
                    this_writer(),
                    _plan_json(plan),
                    now,
                    now,
                ),
            )
            assert cursor.lastrowid is not None
            return _read_variant(conn, cursor.lastrowid)

    def finish_variant(self, variant_id: int, ending: ReplyEnding) -> ReplyVariant:
        """Store the whole variant answer, as `Replies.finish_reply` does for a reply."""
        with self._db.transaction() as conn:
            cursor = conn.execute(
                f"UPDATE reply_variants SET {ending.assignments()}, stream_owner = NULL, "
                "updated_at = ? WHERE id = ? AND (status = 'streaming' OR stream_owner IS NOT NULL)",
                (*ending.values(), self._db.now(), variant_id),
            )
            if cursor.rowcount == 0:
                variant = _read_variant(conn, variant_id)
                raise StoreError(f"Variant {variant.id} is already finished.")
            return _read_variant(conn, variant_id)

    def interrupt_abandoned_variants(self) -> int:
        """Mark variants a dead process left streaming as interrupted (see
        `Replies.interrupt_abandoned_replies`); returns how many. A variant's text
        arrives whole at its end, so an abandoned one is empty."""
        with self._db.reading() as conn:
            # Tests open databases migrated only part of the way (an older ctxchat's).
            if not conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'reply_variants'"
            ).fetchone():
                return 0
            rows = conn.execute(
                "SELECT id, stream_owner, updated_at FROM reply_variants WHERE status = 'streaming'"
            ).fetchall()
        now = self._db.now() if rows else 0.0
        abandoned = [(row[0],) for row in rows if not writer_alive(row[1], row[2], now)]
        if abandoned:
            with self._db.transaction() as conn:
                conn.executemany(
                    "UPDATE reply_variants SET status = 'interrupted' "
                    "WHERE id = ? AND status = 'streaming'",
                    abandoned,
                )
        return len(abandoned)

    def variants(self, reply_id: int) -> list[ReplyVariant]:
        """The variants of a reply, oldest first."""
        with self._db.reading() as conn:
            rows = conn.execute(
                f"SELECT {_VARIANT_COLUMNS} FROM reply_variants WHERE reply_id = ? ORDER BY id",
                (reply_id,),
            ).fetchall()
        return [_variant_from_row(row) for row in rows]

    def get_variant(self, variant_id: int) -> ReplyVariant:
        with self._db.reading() as conn:
            return _read_variant(conn, variant_id)

    def load_variant_plan(self, variant_id: int) -> ContextPlan | None:
        """The plan (with its request) a variant was sent as; None for a former reply that
        had none (one imported from an export made before plans were kept)."""
        with self._db.reading() as conn:
            return _read_variant_plan(conn, variant_id)

    def keep_variant(self, variant_id: int) -> StoredMessage:
        """Make a variant the reply that continues the conversation.

        The reply keeps its place (id, parent); its answer, plan, count and usage trade
        places with the variant's, so the former answer stays as a variant and nothing is
        lost. Keeping it again brings the former answer back.
        """
        with self._db.transaction() as conn:
            variant = _read_variant(conn, variant_id)
            reply = read_message(conn, variant.reply_id)
            for status, what in ((variant.status, "variant"), (reply.status, "reply")):
                if status is MessageStatus.STREAMING:
                    raise StoreError(f"The {what} is still streaming; keep it once it is done.")
            variant_plan = _read_variant_plan(conn, variant_id)
            reply_plan = self._plans.load_plan(reply.id)
            assignments = ", ".join(f"{name} = ?" for name in ANSWER_FIELDS)
            conn.execute(
                f"UPDATE messages SET {assignments}, updated_at = ? WHERE id = ?",
                (*_answer(variant), self._db.now(), reply.id),
            )
            conn.execute(
                f"UPDATE reply_variants SET {assignments}, change = ?, plan = ?, updated_at = ? "
                "WHERE id = ?",
                (
                    *_answer(reply),
                    _former_change(variant),
                    _plan_json(reply_plan),
                    self._db.now(),
                    variant_id,
                ),
            )
            if variant_plan is not None:
                self._plans.save_plan(reply.id, variant_plan)
            else:
                release_plans(conn, [reply.id])
            return read_message(conn, reply.id)

    def replies_after(self, conversation_id: int, message_id: int) -> list[FormerReply]:
        """The replies after `message_id` that hold something (text, reasoning or variants),
        read before they are replaced; see `keep_former_replies`."""
        with self._db.reading() as conn:
            ids = [
                row[0]
                for row in conn.execute(
                    "SELECT id FROM messages WHERE conversation_id = ? AND id > ? "
                    "AND role = 'assistant' ORDER BY id",
                    (conversation_id, message_id),
                )
            ]
            former = []
            for reply_id in ids:
                reply = read_message(conn, reply_id)
                variants = tuple(
                    (variant, _read_variant_plan(conn, variant.id))
                    for variant in self.variants(reply_id)
                )
                if reply.status is MessageStatus.STREAMING:
                    continue  # another writer's reply, still arriving
                if reply.content.strip() or reply.reasoning.strip() or variants:
                    former.append(FormerReply(reply, self._plans.load_plan(reply_id), variants))
            return former

    def keep_former_replies(
        self, reply_id: int, former: Sequence[FormerReply]
    ) -> list[ReplyVariant]:
        """Store replaced replies as variants of `reply_id`, with their plans and usage, and
        their own variants too: regenerating destroys nothing. Returns the variants made
        of the replies themselves (the first is how to get the last one back)."""
        answers: list[tuple[str, StoredMessage | ReplyVariant, ContextPlan | None]] = []
        for old in former:
            if old.reply.content.strip() or old.reply.reasoning.strip():
                answers.append((replaced_as(old.reply), old.reply, old.plan))
            answers.extend((variant.change, variant, plan) for variant, plan in old.variants)
        answers.sort(key=lambda answer: answer[1].created_at)  # listed in the order written
        kept: list[ReplyVariant] = []
        with self._db.transaction() as conn:
            for change, answer, plan in answers:
                new_id = self._insert_answer(conn, reply_id, change, answer, plan)
                if isinstance(answer, StoredMessage):
                    kept.append(_read_variant(conn, new_id))
        return kept

    @staticmethod
    def _insert_answer(
        conn: sqlite3.Connection,
        reply_id: int,
        change: str,
        answer: StoredMessage | ReplyVariant,
        plan: ContextPlan | None,
    ) -> int:
        """One finished answer as a variant of `reply_id`, dated as it was written."""
        names = ", ".join(ANSWER_FIELDS)
        cursor = conn.execute(
            f"INSERT INTO reply_variants (reply_id, change, {names}, plan, created_at, "
            f"updated_at) VALUES (?, ?, {', '.join('?' * len(ANSWER_FIELDS))}, ?, ?, ?)",
            (
                reply_id,
                storable(change),
                *_answer(answer),
                _plan_json(plan),
                answer.created_at,
                answer.updated_at,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid


def _answer(answer: StoredMessage | ReplyVariant) -> tuple[Any, ...]:
    values = [getattr(answer, name) for name in ANSWER_FIELDS]
    values[ANSWER_FIELDS.index("exact")] = int(answer.exact)
    values[ANSWER_FIELDS.index("status")] = answer.status.value
    return tuple(values)


def _former_change(variant: ReplyVariant) -> str:
    if variant.change.startswith("the reply before variant"):
        return "the reply as first kept"
    return FORMER_REPLY.format(id=variant.id, change=variant.change)


def _plan_json(plan: ContextPlan | None) -> str:
    return json.dumps(None if plan is None else plan.to_dict(), ensure_ascii=False)


def _read_variant_plan(conn: sqlite3.Connection, variant_id: int) -> ContextPlan | None:
    row = conn.execute("SELECT plan FROM reply_variants WHERE id = ?", (variant_id,)).fetchone()
    if row is None:
        raise NotFound("variant", variant_id)
    data = json.loads(row[0])
    return None if data is None else ContextPlan.from_dict(data)


def _read_variant(conn: sqlite3.Connection, variant_id: int) -> ReplyVariant:
    row = conn.execute(
        f"SELECT {_VARIANT_COLUMNS} FROM reply_variants WHERE id = ?", (variant_id,)
    ).fetchone()
    if row is None:
        raise NotFound("variant", variant_id)
    return _variant_from_row(row)
