"""Fact extraction with the model: proposals the user accepts, edits or rejects one by one."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from ctxchat.chat.request_room import request_room, system_role_reaches
from ctxchat.chat.session import ChatSession
from ctxchat.core.budget import BudgetError
from ctxchat.core.extraction import (
    ExtractionResult,
    build_extraction_request,
    parse_proposals,
)
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryEntry, MemoryKind, extracted_source
from ctxchat.core.task import TaskState
from ctxchat.model.errors import ErrorKind, ProviderError

RECENT_MESSAGES = 20


class ExtractionFailed(Exception):
    """The model could not be asked (nothing was changed)."""


async def extract_facts(session: ChatSession, recent: int = RECENT_MESSAGES) -> ExtractionResult:
    """Ask the model for typed entries from the recent turns; nothing is stored here.

    The reply may be as long as the output reserve; the turns sent are the most recent of
    the last `recent` that fit the window with it. A reply cut at that limit still gives
    its complete entries (the result says it was cut).
    """
    if session.backend is None:
        raise ExtractionFailed("No model server is configured.")
    known = session.memory()
    try:
        budget = session.budget
    except BudgetError as error:
        raise ExtractionFailed(f"Cannot extract facts: {error}") from error
    task = session.task()  # the model may propose changes to it too (see chat/task_book.py)
    recent_turns = [m for m in session.history() if m.sendable][-recent:]
    messages = _fitting(session, recent_turns, known, task)
    if not messages:
        raise ExtractionFailed("There are no messages to extract facts from yet.")
    request = build_extraction_request(
        messages, known, task, system_role=system_role_reaches(session)
    )
    cut = False
    try:
        text, _usage = await session.backend.complete(
            request, model=session.model, max_tokens=budget.output_reserve
        )
    except ProviderError as error:
        if error.kind is not ErrorKind.TRUNCATED_LENGTH:
            raise ExtractionFailed(f"Extraction failed: {error}") from error
        text, cut = error.partial_text, True
    result = parse_proposals(text, known, valid_ids=[m.id for m in messages], task=task, cut=cut)
    if cut and not result.proposals and not result.task_proposals:
        raise ExtractionFailed(
            "Extraction failed: the model's reply was cut off at its output limit "
            f"({budget.output_reserve:,} tokens) before its first entry ended. "
            "Raise output_reserve in the [context] config table."
        )
    return result


def _fitting(
    session: ChatSession,
    messages: list[HistoryMessage],
    known: list[MemoryEntry],
    task: TaskState,
) -> list[HistoryMessage]:
    """The newest of `messages` whose request fits the window with the reply's reserve."""
    room = request_room(session, session.budget.output_reserve)
    while messages:
        request = build_extraction_request(messages, known, task)
        if sum(session.count(m["role"], m["content"]) for m in request) <= room:
            break
        messages = messages[1:]
    return messages


class Decision(StrEnum):
    """What the user does with a proposal."""

    ACCEPT = "accept"
    UPDATE = "update"
    REJECT = "reject"


ProposalScope = Literal["global", "conversation"]


@dataclass(frozen=True, slots=True)
class ProposalDecision:
    """What the user decided about proposal `index`, with the entry as it should be stored.

    ACCEPT adds a new entry; UPDATE adds it as the new version of entry `target_entry_id`,
    which is kept as superseded; REJECT stores nothing. `message_id` is the message the proposal came from; `edited`
    says the user changed the proposal in the editor.
    """

    index: int
    action: Decision
    kind: MemoryKind
    text: str
    importance: int
    target_entry_id: int | None = None
    key: str | None = None
    scope: ProposalScope = "global"
    pinned: bool = False
    edited: bool = False
    message_id: int | None = None
    span: tuple[int, int] | None = None
    """The messages the model read, the source when the proposal names no message."""

    @property
    def source(self) -> str:
        if self.message_id:
            return extracted_source(self.message_id, self.message_id)
        return extracted_source(*self.span) if self.span else "extraction"


def apply_decisions(session: ChatSession, decisions: list[ProposalDecision]) -> list[MemoryEntry]:
    """Store the accepted and updated entries; returns what was written.

    An update is a new entry that supersedes the one it updates (same key and scope): the
    old one is kept, and can be restored.
    """
    written: list[MemoryEntry] = []
    for decision in decisions:
        if decision.action is Decision.REJECT:
            continue
        source = decision.source
        if decision.action is Decision.UPDATE and decision.target_entry_id is not None:
            old = session.memory_book.get(decision.target_entry_id)
            written.append(
                session.memory_book.add(
                    decision.kind,
                    decision.text,
                    key=old.key,
                    pinned=decision.pinned or old.pinned,
                    importance=decision.importance,
                    conversation_id=old.conversation_id,
                    source=source,
                    tags=old.tags,
                    replaces=old.id,
                )
            )
        else:
            written.append(
                session.memory_book.add(
                    decision.kind,
                    decision.text,
                    key=decision.key,
                    pinned=decision.pinned,
                    importance=decision.importance,
                    conversation_id=None if decision.scope == "global" else session.stored_id,
                    source=source,
                )
            )
    return written
