"""Variants of a reply: stored beside it with their own plan and usage, kept in its place."""

import dataclasses
import json
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget
from ctxchat.core.history import HistoryMessage, MessageStatus
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.tokens import EstimateCounter
from ctxchat.store import (
    SCHEMA_VERSION,
    NotFound,
    ReplyEnding,
    Store,
    StoredMessage,
    StoreError,
    schema,
)
from ctxchat.store.variants import (
    REGENERATED,
    REGENERATED_CUT,
    RETRIED_FAILED,
    RETRIED_INTERRUPTED,
)

from .old_schema import insert_message

Say = Callable[[int, str, str], StoredMessage]


def history_of(store: Store, conversation_id: int, texts: list[str]) -> list[HistoryMessage]:
    history = []
    for index, text in enumerate(texts):
        role = "user" if index % 2 == 0 else "assistant"
        message = store.messages.add_message(
            conversation_id, role, text, tokens=len(text) // 4 + 4, exact=False, encoding="e"
        )
        history.append(HistoryMessage(message.id, role, text, message.tokens))
    return history


def rich_plan(history: list[HistoryMessage], conversation_id: int) -> ContextPlan:
    """A plan with memory, working messages and an input."""
    return assemble_context(
        budget=Budget(900, 100),
        counter=EstimateCounter(),
        mode=Mode.OBJECTIVE,
        system_prompt="You are terse.",
        memory=[
            MemoryEntry(1, MemoryKind.FACT, "The project is called ctxchat."),
            MemoryEntry(2, MemoryKind.PREFERENCE, "Likes short answers."),
        ],
        summary=None,
        history=history,
        new_input="What next?",
        conversation_id=conversation_id,
        options=AssemblyOptions(min_recent=2),
    )


def reply_with_plan(store: Store, say: Say) -> tuple[int, int]:
    """A conversation whose last message is a reply with a stored plan."""
    conversation = store.conversations.create_conversation("c").id
    history = history_of(store, conversation, ["one", "two", "three", "four"])
    reply = store.replies.start_reply(conversation, model="gpt-4o", estimated_prompt_tokens=50)
    store.plans.save_plan(reply.id, rich_plan(history, conversation))
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(
            content="The original answer.",
            tokens=8,
            exact=True,
            encoding="o200k_base",
            prompt_tokens=51,
            completion_tokens=4,
        ),
    )
    return conversation, reply.id


def a_variant(store: Store, reply_id: int, text: str = "A changed answer.") -> int:
    plan = store.plans.load_plan(reply_id)
    assert plan is not None
    changed = dataclasses.replace(plan, mode="personalization", tokens=plan.tokens - 7)
    variant = store.variants.start_variant(
        reply_id, change="without memory", model="other", plan=changed
    )
    assert variant.status is MessageStatus.STREAMING
    store.variants.finish_variant(
        variant.id,
        ReplyEnding(
            content=text,
            tokens=6,
            exact=False,
            encoding="estimate",
            prompt_tokens=44,
            completion_tokens=3,
            finish_reason="stop",
        ),
    )
    return variant.id


def test_a_variant_is_stored_beside_the_reply_which_stays_as_it_was(store: Store, say: Say) -> None:
    conversation, reply_id = reply_with_plan(store, say)
    before = store.plans.load_plan(reply_id)
    variant_id = a_variant(store, reply_id)

    (variant,) = store.variants.variants(reply_id)
    assert (variant.id, variant.change, variant.content, variant.model) == (
        variant_id,
        "without memory",
        "A changed answer.",
        "other",
    )
    assert (variant.prompt_tokens, variant.completion_tokens, variant.tokens) == (44, 3, 6)
    assert variant.estimated_prompt_tokens == before.tokens - 7  # type: ignore[union-attr]
    plan = store.variants.load_variant_plan(variant_id)
    assert plan is not None and plan.mode == "personalization"
    # The reply and the conversation are untouched: a variant never replaces the reply.
    assert store.messages.messages(conversation)[-1].content == "The original answer."
    assert store.plans.load_plan(reply_id) == before


def test_keeping_a_variant_trades_places_and_keeping_again_brings_the_original_back(
    store: Store, say: Say
) -> None:
    conversation, reply_id = reply_with_plan(store, say)
    original_plan = store.plans.load_plan(reply_id)
    variant_id = a_variant(store, reply_id)
    variant_plan = store.variants.load_variant_plan(variant_id)

    kept = store.variants.keep_variant(variant_id)
    assert (kept.id, kept.content, kept.model, kept.prompt_tokens) == (
        reply_id,
        "A changed answer.",
        "other",
        44,
    )
    assert store.messages.messages(conversation)[-1].content == "A changed answer."
    assert store.plans.load_plan(reply_id) == variant_plan
    (former,) = store.variants.variants(reply_id)
    assert former.content == "The original answer."
    assert former.change == f"the reply before variant {variant_id} was kept (without memory)"
    assert store.variants.load_variant_plan(variant_id) == original_plan

    store.variants.keep_variant(variant_id)
    assert store.messages.messages(conversation)[-1].content == "The original answer."
    assert store.plans.load_plan(reply_id) == original_plan


def test_a_streaming_variant_cannot_be_kept_and_unknown_ones_are_named(
    store: Store, say: Say
) -> None:
    _conversation, reply_id = reply_with_plan(store, say)
    plan = store.plans.load_plan(reply_id)
    assert plan is not None
    streaming = store.variants.start_variant(reply_id, change="replay", model=None, plan=plan)
    with pytest.raises(StoreError, match="still streaming"):
        store.variants.keep_variant(streaming.id)
    with pytest.raises(NotFound):
        store.variants.keep_variant(999)
    with pytest.raises(StoreError, match="not a reply"):
        store.variants.start_variant(reply_id - 4, change="x", model=None, plan=plan)


def test_variants_go_with_their_reply(store: Store, say: Say) -> None:
    conversation, reply_id = reply_with_plan(store, say)
    a_variant(store, reply_id)
    store.messages.delete_messages_after(conversation, reply_id - 1)
    with store.reading() as conn:
        assert conn.execute("SELECT count(*) FROM reply_variants").fetchone()[0] == 0


def test_variants_survive_export_and_import_with_their_plans_renumbered(
    store: Store, say: Say, tmp_path: Path
) -> None:
    conversation, reply_id = reply_with_plan(store, say)
    variant_id = a_variant(store, reply_id)
    export = json.loads(json.dumps(store.transfer.export_conversation(conversation)))

    with Store.open(tmp_path / "other.db") as other:
        unrelated = other.conversations.create_conversation("first").id
        for _ in range(3):
            other.messages.add_message(unrelated, "user", "x", tokens=1, exact=True, encoding="x")
        imported = other.transfer.import_conversation(export)
        new_reply = other.messages.messages(imported)[-1]
        (variant,) = other.variants.variants(new_reply.id)
        original = store.variants.get_variant(variant_id)
        assert (variant.content, variant.change, variant.prompt_tokens, variant.model) == (
            original.content,
            original.change,
            original.prompt_tokens,
            original.model,
        )
        plan = other.variants.load_variant_plan(variant.id)
        assert plan is not None
        working = [m.ref for m in plan.messages if m.ref.startswith("message:")]
        new_ids = {f"message:{m.id}" for m in other.messages.messages(imported)}
        assert working and set(working) <= new_ids


def test_an_export_from_before_variants_still_imports(store: Store, say: Say) -> None:
    conversation, _reply_id = reply_with_plan(store, say)
    export = store.transfer.export_conversation(conversation)
    del export["variants"]
    imported = store.transfer.import_conversation(export)
    assert store.variants.variants(store.messages.messages(imported)[-1].id) == []


def test_a_database_from_before_variants_is_upgraded(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:8])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 8)
    with Store.open(db_path) as old:
        conversation = old.conversations.create_conversation("kept").id
        insert_message(old, conversation, "user", "question")
        reply = insert_message(old, conversation, "assistant", "answer")
    monkeypatch.undo()

    with Store.open(db_path) as store:
        with store.reading() as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.messages.messages(conversation)[-1].content == "answer"
        assert store.variants.variants(reply) == []
        plan = rich_plan([], conversation)
        variant = store.variants.start_variant(reply, change="replay", model="m", plan=plan)
        assert store.variants.load_variant_plan(variant.id) == plan


def test_a_variant_a_dead_process_left_streaming_is_interrupted_on_open(
    db_path: Path, say: Say
) -> None:
    with Store.open(db_path) as store:
        _conversation, reply_id = reply_with_plan(store, say)
        plan = store.plans.load_plan(reply_id)
        assert plan is not None
        crashed = store.variants.start_variant(reply_id, change="replay", model="m", plan=plan).id
        live = store.variants.start_variant(reply_id, change="replay", model="m", plan=plan).id
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        with store.transaction() as conn:
            conn.execute(
                "UPDATE reply_variants SET stream_owner = ? WHERE id = ?",
                (f"{socket.gethostname()}/{child.pid}", crashed),
            )
    with Store.open(db_path) as store:
        assert store.variants.get_variant(crashed).status is MessageStatus.INTERRUPTED
        assert store.variants.get_variant(live).status is MessageStatus.STREAMING  # this process
        # A writer taken for dead by mistake still finishes its variant.
        store.variants.finish_variant(
            crashed, ReplyEnding(content="late", tokens=1, exact=False, encoding="e")
        )
        assert store.variants.get_variant(crashed).content == "late"
        store.variants.keep_variant(crashed)
        assert store.messages.get_message(reply_id).content == "late"


def test_a_replaced_reply_becomes_a_variant_of_the_new_one_and_travels_with_it(
    store: Store, say: Say
) -> None:
    conversation, reply_id = reply_with_plan(store, say)
    a_variant(store, reply_id)
    old = store.messages.get_message(reply_id)
    with store.transaction():
        former = store.variants.replies_after(conversation, reply_id - 1)
        store.messages.delete_messages_after(conversation, reply_id - 1)
        new = store.replies.start_reply(conversation, model="gpt-4o")
        (kept,) = store.variants.keep_former_replies(new.id, former)
    assert (kept.change, kept.content, kept.prompt_tokens) == (
        REGENERATED,
        old.content,
        old.prompt_tokens,
    )
    assert store.variants.variants(new.id)[0].id == kept.id  # written first, listed first
    assert len(store.variants.variants(new.id)) == 2  # the old reply's own variant came along

    export = json.loads(json.dumps(store.transfer.export_conversation(conversation)))
    imported = store.transfer.import_conversation(export)
    copy = store.messages.messages(imported)[-1]
    assert [v.change for v in store.variants.variants(copy.id)] == [
        v.change for v in store.variants.variants(new.id)
    ]
    assert store.variants.load_variant_plan(store.variants.variants(copy.id)[-1].id) is not None


@pytest.mark.parametrize(
    ("ending", "label"),
    [
        ({}, REGENERATED),
        ({"finish_reason": "length"}, REGENERATED_CUT),
        ({"status": MessageStatus.INTERRUPTED}, RETRIED_INTERRUPTED),
        ({"status": MessageStatus.FAILED, "error": "Connection reset"}, RETRIED_FAILED),
    ],
)
def test_a_replaced_reply_is_labelled_by_what_replaced_it(
    store: Store, say: Say, ending: dict[str, Any], label: str
) -> None:
    """A retried reply that failed or stopped is not "the reply before it was regenerated"."""
    conversation = store.conversations.create_conversation("c").id
    question = say(conversation, "user", "Question?")
    reply = store.replies.start_reply(conversation, model="gpt-4o")
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(
            content="Part of an answer", tokens=4, exact=True, encoding="o200k_base", **ending
        ),
    )
    with store.transaction():
        former = store.variants.replies_after(conversation, question.id)
        store.messages.delete_messages_after(conversation, question.id)
        new = store.replies.start_reply(conversation, model="gpt-4o")
        (kept,) = store.variants.keep_former_replies(new.id, former)
    assert kept.change == label
