"""Recall by meaning in a session while another process (a command, a second app) writes to
its conversation: what that process embedded is searched, what it edited or deleted is no
longer found by its old meaning, without opening the conversation again."""

from __future__ import annotations

import random

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.chat.window import WindowInfo
from ctxchat.store import Store

from .test_session_recall import filler, long_conversation, prepared_semantic

PAID = "The quote from the roofer came to 4,200 euros, tiles and labour included."
ASKED = "How expensive was fixing the top of the house?"


def written_elsewhere(store: Store, conversation_id: int, texts: list[str]) -> list[int]:
    """`texts` added to the conversation by another process (a connection of its own), which
    embeds them as a command does; their ids."""
    other = Store.open(store.path)
    try:
        ids = [
            other.messages.add_message(
                conversation_id, role, text, tokens=len(text) // 4, exact=False, encoding="x"
            ).id
            for role, text in zip(["user", "assistant"] * len(texts), texts, strict=False)
        ]
        there = SemanticRecall(other, conversation_id)
        there.prepare()
        assert there.embed_rest(pause=0.0) == len(texts)
    finally:
        other.close()
    return ids


def by_meaning(session: ChatSession, draft: str) -> list[str]:
    """The refs recall found by meaning for `draft`."""
    return [hit.ref for hit in session.recaller.recall(draft) if hit.cosine is not None]


def test_recall_by_meaning_searches_what_another_process_embedded(
    session: ChatSession,
) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 30, {})
    semantic = prepared_semantic(session)
    assert semantic.embed_rest(pause=0.0) == 60
    session.semantic = semantic
    assert by_meaning(session, ASKED) == []  # nothing in the conversation is about a roof

    rng = random.Random(3)
    ids = written_elsewhere(
        session.store, session.stored_id, [PAID] + [filler(rng) for _ in range(15)]
    )
    plan = session.plan(ASKED)
    # Its vector is in the database: the session searches it, and does not say it lacks one.
    assert f"message:{ids[0]}" in by_meaning(session, ASKED)
    assert not any("not embedded" in warning for warning in plan.warnings)


def test_a_message_another_process_edited_is_not_found_by_its_old_meaning(
    session: ChatSession,
) -> None:
    session.server.use_window(WindowInfo(4_000, "config"))
    long_conversation(session, 30, {3: PAID})
    semantic = prepared_semantic(session)
    semantic.embed_rest(pause=0.0)
    session.semantic = semantic
    paid = "message:5"
    assert paid in by_meaning(session, ASKED)

    other = Store.open(session.store.path)
    try:
        other.messages.update_message_content(
            5, "Remind me to water the plants.", tokens=8, exact=False, encoding="x"
        )
        there = SemanticRecall(other, session.stored_id)
        there.prepare()
        assert there.embed_rest(pause=0.0) == 1  # the edited message, embedded again
    finally:
        other.close()
    session.plan(ASKED)  # the session reads what the other process wrote
    assert paid not in by_meaning(session, ASKED)

    other = Store.open(session.store.path)
    try:
        other.messages.delete_messages_after(session.stored_id, 40)
    finally:
        other.close()
    session.plan(ASKED)
    assert all(int(ref.split(":")[1]) <= 40 for ref in by_meaning(session, "the roofer"))
