"""The "used" estimate over a conversation's replies: stored plans, words and meaning."""

from __future__ import annotations

import pytest

from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import send_message
from ctxchat.chat.usage import UsageTracker
from ctxchat.core.memory import MemoryKind
from ctxchat.testing.server import ScriptedModelServer


async def test_each_reply_is_judged_by_the_request_it_came_from(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    store = session.store
    database = store.memory.add_memory(MemoryKind.FACT, "The service runs on PostgreSQL 16.")
    frontend = store.memory.add_memory(MemoryKind.FACT, "The frontend is written in Svelte.")
    offline = store.memory.add_memory(MemoryKind.CONSTRAINT, "Everything must work offline.")
    store.memory.add_memory(MemoryKind.FACT, "Old news.", key="x")
    news = store.memory.add_memory(MemoryKind.FACT, "New news.", key="x")  # the old one superseded
    session.forget_memory()
    server.script("Production runs PostgreSQL 16: add an index.", "In Svelte, use bind:value.")
    for question in ("Slow query?", "A form field?"):
        [event async for event in send_message(session, question)]
    tracker = UsageTracker(last=2)
    view = tracker.view(session)
    assert set(view.used) == {frontend.ref}  # the newest reply
    assert view.replies == 2
    # Neither reply used the offline constraint; a superseded entry is never "unused".
    assert view.idle == {offline.ref, news.ref}
    assert database.ref not in view.idle


def test_meaning_finds_what_shares_no_words(session: ChatSession) -> None:
    from ctxchat.chat.semantic import SemanticRecall
    from ctxchat.core.attribution import Source

    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    semantic = SemanticRecall(session.store, session.stored_id)
    semantic.prepare()
    close = semantic.closeness(
        "Keep your reply brief, with a single snippet.",
        [
            Source("memory:1", "The user prefers short answers with one code example."),
            Source("memory:2", "Backups run nightly to an S3 bucket."),
        ],
    )
    assert close["memory:1"] > close["memory:2"]
