"""Fact extraction through the model: proposals, malformed output, and applying decisions."""

from __future__ import annotations

import json

import pytest

from ctxchat.chat.extractor import (
    Decision,
    ExtractionFailed,
    ProposalDecision,
    apply_decisions,
    extract_facts,
)
from ctxchat.chat.session import ChatSession
from ctxchat.core.memory import MemoryKind
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.testing.server.script import Reply


async def test_good_output_becomes_proposals_and_nothing_is_stored(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    existing = session.store.memory.add_memory(MemoryKind.FACT, "The team deploys on Fridays.")
    session.forget_memory()
    question = session.add_user_message(
        "We deploy on Fridays now, and I think Rust would be nicer."
    )
    server.script(
        json.dumps(
            [
                {
                    "kind": "fact",
                    "text": "The team deploys on Fridays.",
                    "importance": 6,
                    "message_id": question.id,
                },
                {
                    "kind": "preference",
                    "text": "The user would like Rust.",
                    "importance": 3,
                    "message_id": question.id,
                },
            ]
        )
    )
    result = await extract_facts(session)
    assert [(p.kind, p.matches_entry_id, p.message_id) for p in result.proposals] == [
        (MemoryKind.FACT, existing.id, question.id),
        (MemoryKind.PREFERENCE, None, question.id),
    ]
    assert result.problems == ()
    assert [
        e.id for e in session.store.memory.list_memory(conversation_id=session.conversation_id)
    ] == [existing.id]
    sent = server.requests[-1]["messages"]
    assert f"[{question.id}] user: We deploy on Fridays now" in sent[1]["content"]
    assert "- (fact) The team deploys on Fridays." in sent[1]["content"]


async def test_malformed_output_gives_a_message_and_what_parsed(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.add_user_message("Note: builds must stay offline.")
    server.script('Sure! [{"kind": "constraint", "text": "Builds stay offline."}, {"kind": ')
    result = await extract_facts(session)
    assert [p.text for p in result.proposals] == ["Builds stay offline."]
    server.script("no json here")
    empty = await extract_facts(session)
    assert empty.proposals == ()
    assert empty.problems == ("The model's reply held no JSON entries.",)


async def test_server_failure_is_a_clear_error(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.add_user_message("hello")
    server.fail_next(Fault.SERVER_ERROR)
    with pytest.raises(ExtractionFailed) as caught:
        await extract_facts(session)
    assert str(caught.value).startswith("Extraction failed: ")


async def test_nothing_to_extract_from(session: ChatSession) -> None:
    with pytest.raises(ExtractionFailed, match="no messages to extract facts from"):
        await extract_facts(session)


def test_apply_accept_update_reject(session: ChatSession) -> None:
    old = session.store.memory.add_memory(MemoryKind.HYPOTHESIS, "Maybe the cache is cold.")
    written = apply_decisions(
        session,
        [
            ProposalDecision(
                0, Decision.ACCEPT, MemoryKind.FACT, "Uses SQLite.", 7, message_id=None
            ),
            ProposalDecision(
                1,
                Decision.UPDATE,
                MemoryKind.FACT,
                "The cache is cold at start.",
                6,
                target_entry_id=old.id,
                span=(3, 9),
            ),
            ProposalDecision(2, Decision.ACCEPT, MemoryKind.FACT, "Port 5432.", 5, message_id=4),
            ProposalDecision(3, Decision.REJECT, MemoryKind.FACT, "Nonsense.", 1),
        ],
    )
    assert [(e.kind, e.text, e.source) for e in written] == [
        (MemoryKind.FACT, "Uses SQLite.", "extraction"),
        (MemoryKind.FACT, "The cache is cold at start.", "messages:3-9"),
        (MemoryKind.FACT, "Port 5432.", "messages:4-4"),
    ]
    # An update keeps the old entry, superseded by the new one.
    current = sorted(e.text for e in session.memory() if not e.superseded)
    assert current == ["Port 5432.", "The cache is cold at start.", "Uses SQLite."]
    assert session.store.memory.get_memory(old.id).superseded_by == written[1].id


async def test_a_cut_reply_offers_its_complete_entries_and_says_it_was_cut(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    said = session.add_user_message("We deploy on Fridays, from the eu-west-1 region.")
    whole = {"kind": "fact", "text": "Deploys happen on Fridays.", "importance": 6}
    server.script(
        Reply(
            json.dumps([{**whole, "message_id": said.id}])[:-1]
            + ', {"kind": "fact", "text": "The region is eu-w',
            finish_reason="length",
        )
    )
    result = await extract_facts(session)
    assert server.requests[-1]["max_tokens"] == session.budget.output_reserve
    assert result.cut
    assert [p.text for p in result.proposals] == ["Deploys happen on Fridays."]
    assert result.problems[0] == (
        "The model's reply was cut off at its output limit; the 1 complete entry before the "
        "cut is offered, the rest was lost."
    )


async def test_a_reply_cut_before_its_first_entry_fails_with_one_remedy(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.add_user_message("We deploy on Fridays.")
    server.script(Reply('[{"kind": "fact", "text": "Deploys ha', finish_reason="length"))
    with pytest.raises(ExtractionFailed) as failed:
        await extract_facts(session)
    assert str(failed.value) == (
        "Extraction failed: the model's reply was cut off at its output limit (1,000 tokens) "
        "before its first entry ended. Raise output_reserve in the [context] config table."
    )


async def test_only_the_newest_turns_that_fit_the_window_are_sent(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    for turn in range(20):
        session.add_user_message(f"Turn {turn}: " + "a long line of chat " * 80)
    server.script("[]")
    await extract_facts(session)
    sent = server.requests[-1]["messages"]
    prompt = sum(session.count(m["role"], m["content"]) for m in sent)
    assert prompt + server.requests[-1]["max_tokens"] <= session.budget.context_window
    assert "Turn 19:" in sent[1]["content"]
    assert "Turn 0:" not in sent[1]["content"]
