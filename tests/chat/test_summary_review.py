"""Compaction you can review: a proposal with its loss report, accepted, edited or dropped,
and a version in force flagged until its report is reviewed."""

from __future__ import annotations

import pytest

from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import (
    Summarizer,
    SummaryFailed,
    SummaryProposal,
    accept,
    edit_summary,
    mark_reviewed,
    report_for,
    roll_back,
)
from ctxchat.core.summary_loss import add_back
from ctxchat.testing.server import ScriptedModelServer

from .test_summary_limits import talk

PORT = "Run the proxy on port 8771 and log to /var/log/proxy.log."


async def proposed(session: ChatSession, server: ScriptedModelServer) -> SummaryProposal:
    """A proposal folding a turn that names a port and a path, which the summary drops."""
    session.add_user_message(PORT)
    talk(session, 6)
    server.script("They set up a proxy.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    return await Summarizer.for_session(session).propose(fold)


async def test_a_proposal_stores_nothing_until_accepted(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    said = session.add_user_message(PORT)
    talk(session, 6)
    server.script("They set up a proxy.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    proposal = await Summarizer.for_session(session).propose(fold)
    assert [(i.text, i.message_id) for i in proposal.lost.lost[:2]] == [
        ("/var/log/proxy.log", said.id),
        ("8771", said.id),
    ]
    assert session.store.summaries.summaries(session.stored_id) == []
    # Rejecting is dropping the proposal: the turns stay as they were.
    assert session.pending_fold(manual=True) == fold
    version = accept(session, proposal)
    assert version.text == "They set up a proxy."
    assert version.lost == proposal.lost.lost
    assert version.flagged and not version.edited


async def test_adding_back_what_was_lost_before_accepting(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    proposal = await proposed(session, server)
    path = proposal.lost.lost[0]
    text = add_back(proposal.text, path, proposal.strategy)
    assert text == f"They set up a proxy.\n{PORT}"
    # The preview's list shrinks as the user adds back: the sentence held both details.
    remaining = report_for(proposal, text)
    assert [i.text for i in remaining] == [i.text for i in proposal.lost.lost[2:]]
    version = accept(session, proposal, text)
    assert version.edited and version.text == text
    assert version.lost == remaining
    assert version.note == "edited by you before it went into force"


async def test_a_proposal_made_before_another_version_came_into_force_is_refused(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    talk(session, 10)
    server.script("First.", "Second.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    summarizer = Summarizer.for_session(session)
    first = await summarizer.propose(fold)
    second = await summarizer.propose(fold)
    accept(session, second)
    with pytest.raises(SummaryFailed, match="summarize again"):
        accept(session, first)
    versions = session.store.summaries.summaries(session.stored_id)
    assert [(v.version, v.text) for v in versions] == [(1, "Second.")]


async def test_reviewing_a_version_in_force(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.add_user_message(PORT)
    talk(session, 6)
    server.script("They set up a proxy.")
    fold = session.pending_fold(manual=True)
    assert fold is not None
    version = await Summarizer.for_session(session).fold(fold)
    assert session.active_summary() == version and version.flagged
    kept = mark_reviewed(session, version.id)
    assert not kept.flagged and kept.lost == version.lost
    assert session.active_summary() == kept
    # Editing keeps what the edited text still lacks.
    edited = edit_summary(session, f"They set up a proxy. {PORT}")
    assert {i.text for i in edited.lost} == {i.text for i in version.lost} - {
        "8771",
        "/var/log/proxy.log",
    }
    # Rejecting a version in force is rolling back: the turns are not summarized again.
    roll_back(session, None)
    assert session.pending_fold(manual=True) == fold
