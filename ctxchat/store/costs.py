"""The usage of every answer a model gave (replies and their variants), to add up what they cost."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.core.history import MessageStatus
from ctxchat.core.prices import Billing, ReplyUsage
from ctxchat.store.database import Database

# Each answer is a request ctxchat made: a reply (its `estimated_prompt_tokens` is set when
# it starts), or a variant of one. A reply copied into a branch made no request.
_ANSWERS = """
    SELECT 'reply', m.id, m.conversation_id, m.model, m.billing, m.prompt_tokens,
           m.cached_tokens, m.completion_tokens, m.estimated_prompt_tokens, m.tokens, m.status,
           m.created_at
    FROM messages m
    WHERE m.role = 'assistant' AND m.status <> 'streaming'
      AND m.estimated_prompt_tokens IS NOT NULL {messages}
    UNION ALL
    SELECT 'variant', v.id, m.conversation_id, v.model, v.billing, v.prompt_tokens,
           v.cached_tokens, v.completion_tokens, v.estimated_prompt_tokens, v.tokens, v.status,
           v.created_at
    FROM reply_variants v JOIN messages m ON m.id = v.reply_id
    WHERE v.status <> 'streaming' {variants}
    ORDER BY 12, 2
"""


@dataclass(frozen=True, slots=True)
class BilledAnswer:
    """One answer a model gave: a reply or a variant (`kind`), when it was asked, its usage."""

    kind: str
    id: int
    conversation_id: int
    usage: ReplyUsage
    created_at: float


class Costs:
    """Reads what the cost of replies is made from."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def billed_answers(
        self,
        conversation_id: int | None = None,
        *,
        since: float | None = None,
        until: float | None = None,
    ) -> list[BilledAnswer]:
        """Every answer of one conversation (or of all), asked between `since` and `until`
        (seconds since the epoch), oldest first."""
        conditions: list[str] = []
        values: list[float] = []
        if conversation_id is not None:
            conditions.append("AND m.conversation_id = ?")
            values.append(conversation_id)
        for bound, operator in ((since, ">="), (until, "<")):
            if bound is not None:
                conditions.append(f"AND {{table}}.created_at {operator} ?")
                values.append(bound)
        where = " ".join(conditions)
        query = _ANSWERS.format(messages=where.format(table="m"), variants=where.format(table="v"))
        with self._db.reading() as conn:
            rows = conn.execute(query, (*values, *values)).fetchall()
        return [_answer(row) for row in rows]


def _answer(row: tuple[object, ...]) -> BilledAnswer:
    kind, answer_id, conversation_id, model, billing, prompt, cached, completion = row[:8]
    estimated, tokens, status, created_at = row[8:]
    usage = ReplyUsage(
        model if isinstance(model, str) else None,
        Billing(billing) if billing in ("free", "priced") else None,
        _count(prompt),
        _count(cached),
        _count(completion),
        _count(estimated),
        _count(tokens) or 0,
        failed=status == MessageStatus.FAILED.value,
    )
    assert isinstance(answer_id, int) and isinstance(conversation_id, int)
    when = created_at if isinstance(created_at, int | float) else 0.0
    return BilledAnswer(str(kind), answer_id, conversation_id, usage, float(when))


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
