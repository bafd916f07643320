"""Summarization through the model: incremental folds, failures, rebuild, edit, rollback."""

from __future__ import annotations

from typing import Any

import pytest

from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import Summarizer, SummaryFailed, edit_summary, roll_back
from ctxchat.core.budget import Layer
from ctxchat.testing.server import Fault, ScriptedModelServer


def fill(session: ChatSession, turns: int) -> None:
    for i in range(turns):
        session.add_user_message(f"Question {i}")
        session.store.messages.add_message(
            session.stored_id,
            "assistant",
            f"Answer {i}",
            tokens=session.count("assistant", f"Answer {i}"),
            exact=True,
            encoding=session.counter.name,
        )
    session.forget_history()


def summarizer_requests(server: ScriptedModelServer) -> list[str]:
    return [r["messages"][1]["content"] for r in server.requests]


async def test_summarize_now_folds_all_but_recent(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    fill(session, 10)  # 20 messages, min_recent 10
    fold = session.pending_fold(manual=True)
    assert fold is not None
    assert [m.content for m in fold.messages][:2] == ["Question 0", "Answer 0"]
    assert len(fold.messages) == 10
    server.script("They asked questions 0 to 4.")
    version = await Summarizer.for_session(session).fold(fold)
    assert (version.version, version.first_message_id, version.last_message_id) == (
        1,
        fold.first_id,
        fold.last_id,
    )
    plan = session.plan("next")
    assert plan.messages[1].layer is Layer.SUMMARY
    assert plan.messages[1].content.endswith("They asked questions 0 to 4.")
    assert [o.detail for o in plan.layer(Layer.WORKING).left_out] == ["in summary v1"]
    # Originals are never deleted.
    assert len(session.store.messages.messages(session.stored_id)) == 20


async def test_second_fold_sends_previous_summary_and_new_messages_only(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    fill(session, 10)
    server.script("S1", "S2")
    summarizer = Summarizer.for_session(session)
    first = session.pending_fold(manual=True)
    assert first is not None
    await summarizer.fold(first)
    fill(session, 3)
    second = session.pending_fold(manual=True)
    assert second is not None
    assert second.first_id == first.last_id + 1
    await summarizer.fold(second)
    prompt = summarizer_requests(server)[-1]
    assert prompt.startswith("Current summary:\nS1\n\nNew messages to fold into it:\n")
    assert "Question 0" not in prompt
    assert "[user] Question 5" in prompt
    versions = session.store.summaries.summaries(session.stored_id)
    assert [(v.version, v.text) for v in versions] == [(1, "S1"), (2, "S2")]
    assert versions[1].first_message_id == first.first_id


@pytest.mark.parametrize(("fault", "reply"), [(Fault.SERVER_ERROR, None), (None, "   ")])
async def test_failed_or_empty_summary_keeps_the_old_one(
    session: ChatSession, server: ScriptedModelServer, fault: Fault | None, reply: str | None
) -> None:
    fill(session, 10)
    server.script("Old summary.")
    summarizer = Summarizer.for_session(session)
    fold = session.pending_fold(manual=True)
    assert fold is not None
    await summarizer.fold(fold)
    fill(session, 4)
    if fault:
        server.fail_next(fault)
    if reply is not None:
        server.script(reply)
    later = session.pending_fold(manual=True)
    assert later is not None
    with pytest.raises(SummaryFailed) as caught:
        await summarizer.fold(later)
    assert str(caught.value).startswith("Summarization failed:")
    active = session.store.summaries.active_summary(session.stored_id)
    assert active is not None
    assert active.text == "Old summary."
    assert len(session.store.summaries.summaries(session.stored_id)) == 1


async def test_rebuild_edit_and_rollback(session: ChatSession, server: ScriptedModelServer) -> None:
    fill(session, 10)
    seen: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> str:
        seen.append(body)
        return f"summary {len(seen)}"

    server.script(answer, answer)
    summarizer = Summarizer.for_session(session)
    fold = session.pending_fold(manual=True)
    assert fold is not None
    first = await summarizer.fold(fold)
    rebuilt = await summarizer.rebuild()
    assert rebuilt.text == "summary 2"
    assert rebuilt.note == "rebuilt from the original messages"
    assert seen[1]["messages"][1]["content"].startswith("Messages:\n[user] Question 0")
    edited = edit_summary(session, "My own words.")
    assert edited.edited is True
    assert session.plan("x").messages[1].content.endswith("My own words.")
    roll_back(session, first.id)
    assert session.plan("x").messages[1].content.endswith("summary 1")
    roll_back(session, None)
    assert [m.layer for m in session.plan("x").messages][1] is Layer.WORKING


async def test_incremental_folding_folds_each_message_once(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.default_reply = "folded"
    summarizer = Summarizer.for_session(session)
    folded: list[int] = []
    for _ in range(30):
        fill(session, 2)
        fold = session.pending_fold(manual=True)
        if fold is not None and len(fold.messages) >= 4:
            folded.extend(m.id for m in fold.messages)
            await summarizer.fold(fold)
    ids = [m.id for m in session.store.messages.messages(session.stored_id)]
    assert folded == ids[: len(folded)]
    assert len(folded) == len(set(folded)) == 110
