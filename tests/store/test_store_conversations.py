"""Conversations: create, get, list with search, rename, latest, and deletion that leaves nothing."""

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.core.budget import Budget
from ctxchat.core.memory import MemoryKind, excluded_detail
from ctxchat.core.plan import ContextPlan
from ctxchat.store import (
    Conversation,
    ConversationInfo,
    NotFound,
    ReplyEnding,
    Store,
    StoredMessage,
)

Say = Callable[[int, str, str], StoredMessage]


def test_create_and_get(store: Store) -> None:
    created = store.conversations.create_conversation(
        "  Trip\nplanning  ", model="gpt-4o", profile="work"
    )
    assert created == Conversation(
        id=1,
        title="Trip planning",
        model="gpt-4o",
        profile="work",
        active_summary_id=None,
        created_at=1000.0,
        updated_at=1000.0,
    )
    assert store.conversations.get_conversation(1) == created
    assert store.conversations.create_conversation().title == ""


def test_get_missing_conversation_says_so(store: Store) -> None:
    with pytest.raises(NotFound) as caught:
        store.conversations.get_conversation(42)
    assert str(caught.value) == "No conversation with id 42."


def test_list_orders_by_last_change_and_counts_messages_and_tokens(store: Store, say: Say) -> None:
    first = store.conversations.create_conversation("first")  # t=1000
    second = store.conversations.create_conversation("second")  # t=1001
    say(first.id, "user", "one two three")  # t=1002: 7 tokens; first becomes newest
    say(first.id, "assistant", "four")  # t=1003: 5 tokens
    assert store.conversations.list_conversations() == [
        ConversationInfo(first.id, "first", 1000.0, 1003.0, 2, 12),
        ConversationInfo(second.id, "second", 1001.0, 1001.0, 0, 0),
    ]
    assert store.conversations.latest_conversation() == store.conversations.get_conversation(
        first.id
    )


def test_latest_is_none_without_conversations(store: Store) -> None:
    assert store.conversations.latest_conversation() is None


def test_search_matches_titles_and_messages_ignoring_case_in_any_script(
    store: Store,
    say: Say,
) -> None:
    russian = store.conversations.create_conversation("Заметки")
    english = store.conversations.create_conversation("Groceries")
    say(russian.id, "user", "Привет, как дела?")
    say(english.id, "assistant", "Buy MILK and 100% juice")
    assert [c.id for c in store.conversations.list_conversations("ПРИВЕТ")] == [russian.id]
    assert [c.id for c in store.conversations.list_conversations("заметки")] == [russian.id]
    assert [c.id for c in store.conversations.list_conversations("milk")] == [english.id]
    assert [c.id for c in store.conversations.list_conversations("100%")] == [english.id]
    assert [c.id for c in store.conversations.list_conversations("_")] == []
    assert store.conversations.list_conversations("nothing like this") == []
    assert len(store.conversations.list_conversations("   ")) == 2


def test_rename(store: Store) -> None:
    conversation = store.conversations.create_conversation("old")
    renamed = store.conversations.rename_conversation(conversation.id, " new\ttitle ")
    assert (renamed.title, renamed.updated_at) == ("new title", 1001.0)
    with pytest.raises(NotFound):
        store.conversations.rename_conversation(99, "x")


def row_counts(store: Store) -> dict[str, int]:
    tables = ("conversations", "messages", "summaries", "memory", "plan_blobs", "reply_plans")
    with store.reading() as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def fill(store: Store, marker: str) -> int:
    conversation = store.conversations.create_conversation(f"title {marker}")
    user = store.messages.add_message(
        conversation.id, "user", f"question {marker}", tokens=5, exact=True, encoding="o200k_base"
    )
    reply = store.replies.start_reply(conversation.id, model="m", estimated_prompt_tokens=9)
    store.replies.save_partial(reply.id, f"partial {marker}")
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(content=f"answer {marker}", tokens=4, exact=True, encoding="o200k_base"),
    )
    store.summaries.add_summary(
        conversation.id,
        text=f"summary {marker}",
        first_message_id=user.id,
        last_message_id=reply.id,
        strategy="summarize",
        model="m",
        tokens=3,
    )
    store.memory.add_memory(MemoryKind.FACT, f"fact {marker}", conversation_id=conversation.id)
    plan = ContextPlan.from_dict(
        {
            "format": 1,
            "status": "ok",
            "mode": "personalization",
            "budget": {
                "context_window": 1000,
                "output_reserve": 100,
                "total": 900,
                "shares": Budget(1000, 100).shares.as_dict(),
            },
            "counter": {"name": "o200k_base", "exact": True, "note": "exact"},
            "tokens": 10,
            "layers": [],
            "messages": [
                {
                    "role": "user",
                    "content": f"question {marker}",
                    "layer": "input",
                    "tokens": 5,
                    "ref": "input",
                }
            ],
        }
    )
    store.plans.save_plan(reply.id, plan)
    return conversation.id


def test_delete_with_memory_removes_everything_of_the_conversation_and_nothing_else(
    store: Store,
) -> None:
    store.memory.add_memory(MemoryKind.CONSTRAINT, "global stays")
    kept = fill(store, "kept")
    doomed = fill(store, "doomed")
    store.conversations.delete_conversation(doomed, with_memory=True)
    assert row_counts(store) == {
        "conversations": 1,
        "messages": 2,
        "summaries": 1,
        "memory": 2,  # the global entry and the kept conversation's own
        "plan_blobs": 1,
        "reply_plans": 1,
    }
    assert [c.id for c in store.conversations.list_conversations()] == [kept]
    with pytest.raises(NotFound):
        store.conversations.get_conversation(doomed)
    with pytest.raises(NotFound):
        store.conversations.delete_conversation(doomed)


def test_delete_keeps_the_conversations_memory_left_out_and_named(store: Store) -> None:
    """By default a deleted conversation's own entries stay: global from then on, left out
    of every request until included, with the conversation they came from."""
    doomed = fill(store, "doomed")
    store.conversations.rename_conversation(doomed, "Trip to Porto")
    [entry] = store.memory.conversation_memory(doomed)
    store.conversations.delete_conversation(doomed)
    kept = store.memory.get_memory(entry.id)
    assert kept.text == "fact doomed"
    assert kept.conversation_id is None
    assert not kept.enabled
    assert kept.kept_from == "Trip to Porto"
    assert excluded_detail(kept) == (
        "kept from the deleted conversation “Trip to Porto”: include it to use it"
    )
    other = store.conversations.create_conversation("Garden").id
    assert [e.id for e in store.memory.list_memory(conversation_id=other)] == [entry.id]


def test_deleted_text_is_not_left_in_the_files(store: Store, db_path: Path) -> None:
    marker = "ZEBRA-7f3a-SECRET"
    for index in range(40):
        conversation = fill(store, f"{marker}-{index}")
        store.messages.add_message(
            conversation, "user", f"{marker} " * 5000, tokens=1, exact=True, encoding="e"
        )
    fill(store, "other")
    store.checkpoint()
    size_before = db_path.stat().st_size
    for conversation_id in range(1, conversation + 1):
        store.conversations.delete_conversation(conversation_id, with_memory=True)
    # While the store is still open: the log was emptied into the database file.
    files = {p.name: p.read_bytes() for p in db_path.parent.iterdir()}
    assert sorted(files) == ["ctxchat.db", "ctxchat.db-shm", "ctxchat.db-wal"]
    assert files["ctxchat.db-wal"] == b""
    for name, data in files.items():
        assert marker.encode() not in data, name
    assert b"other" in files["ctxchat.db"]
    with store.reading() as conn:
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    # 40 × 90 kB of text were deleted: the file gave that space back.
    assert size_before > 3_600_000
    assert db_path.stat().st_size < 200_000


def test_delete_waits_briefly_for_a_reader_elsewhere_then_empties_the_log(
    store: Store, db_path: Path
) -> None:
    conversation = fill(store, "shared-secret")
    reader = sqlite3.connect(db_path, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM messages").fetchone()
    finish = threading.Timer(0.2, reader.rollback)
    finish.start()
    store.conversations.delete_conversation(conversation, with_memory=True)
    finish.join()
    reader.close()
    assert Path(f"{db_path}-wal").read_bytes() == b""
    for path in db_path.parent.iterdir():
        assert b"shared-secret" not in path.read_bytes()


def test_a_reader_that_stays_only_postpones_emptying_the_log(store: Store, db_path: Path) -> None:
    conversation = fill(store, "shared-secret")
    reader = sqlite3.connect(db_path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM messages").fetchone()
    store.conversations.delete_conversation(
        conversation, with_memory=True
    )  # returns after the short wait, without an error
    assert store.conversations.list_conversations() == []  # the store is still usable
    assert store.checkpoint(wait=0.05) is False
    reader.rollback()
    reader.close()
    assert store.checkpoint() is True
    for path in db_path.parent.iterdir():
        assert b"shared-secret" not in path.read_bytes()
