"""Per-reply context plans: stored exactly, compactly, and freed with the replies."""

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget
from ctxchat.core.history import HistoryMessage, MessageStatus, SummaryState
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.core.plan import ContextPlan, PlanStatus
from ctxchat.core.tokens import EstimateCounter
from ctxchat.model.request import build_chat_request
from ctxchat.store import NotFound, Store
from ctxchat.store.plancodec import DICTIONARY_V1, pack, rebuild, unpack


def blob_rows(store: Store) -> list[tuple[str, int]]:
    with store.reading() as conn:
        return conn.execute("SELECT content, refs FROM plan_blobs ORDER BY id").fetchall()


def history_of(store: Store, conversation_id: int, texts: list[str]) -> list[HistoryMessage]:
    history = []
    for index, text in enumerate(texts):
        role = "user" if index % 2 == 0 else "assistant"
        message = store.messages.add_message(
            conversation_id, role, text, tokens=len(text) // 4 + 4, exact=False, encoding="estimate"
        )
        history.append(HistoryMessage(message.id, role, text, message.tokens))
    return history


def rich_plan(history: list[HistoryMessage], conversation_id: int) -> ContextPlan:
    """A plan with every kind of layer content and left-out reason."""
    memory = [
        MemoryEntry(1, MemoryKind.FACT, "The project is called ctxchat.", pinned=True),
        MemoryEntry(2, MemoryKind.PREFERENCE, "Likes short answers."),
        MemoryEntry(3, MemoryKind.CONSTRAINT, "Python 3.11 only.", enabled=False),
        MemoryEntry(4, MemoryKind.FACT, "Scoped fact.", conversation_id=conversation_id),
    ]
    failed = HistoryMessage(history[-1].id + 1, "assistant", "", 0, MessageStatus.FAILED)
    return assemble_context(
        budget=Budget(900, 100),
        counter=EstimateCounter(),
        mode=Mode.OBJECTIVE,
        system_prompt="You are terse. Ты краток.",
        memory=memory,
        summary=SummaryState(3, "Earlier: they chose SQLite.", history[0].id, history[3].id),
        history=[*history, failed],
        new_input="What next? `code`",
        conversation_id=conversation_id,
        options=AssemblyOptions(min_recent=2),
    )


def test_a_plan_comes_back_exactly(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    texts = [f"message {i}: " + "слово word " * (i * 7 % 40) for i in range(30)]
    history = history_of(store, conversation.id, texts)
    plan = rich_plan(history, conversation.id)
    reasons = {item.reason.value for item in plan.left_out}
    assert reasons == {"mode", "disabled", "budget", "summarized", "failed"}
    reply = store.replies.start_reply(conversation.id, model="m")
    store.plans.save_plan(reply.id, plan)
    loaded = store.plans.load_plan(reply.id)
    # Assembly puts the stored messages themselves in a plan; a loaded plan has PlanMessages
    # with the same fields, so the comparison is of what a plan says: its to_dict().
    assert loaded is not None and loaded.to_dict() == plan.to_dict()
    assert store.plans.load_plan(history[0].id) is None


def test_unusual_plans_come_back_exactly(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    reply = store.replies.start_reply(conversation.id, model="m")
    over = assemble_context(
        budget=Budget(100, 50),
        counter=EstimateCounter(),
        mode=Mode.PERSONALIZATION,
        system_prompt="s",
        memory=[],
        summary=None,
        history=[],
        new_input="x " * 500,
    )
    assert over.status is PlanStatus.OVER_BUDGET and over.messages == ()
    store.plans.save_plan(reply.id, over)
    assert store.plans.load_plan(reply.id) == ContextPlan.from_dict(over.to_dict())
    # Odd refs, the same text twice, empty text, text needing escapes.
    data = over.to_dict()
    data["status"] = "ok"
    data["messages"] = [
        {"role": "user", "content": "same", "layer": "working", "tokens": 5, "ref": "message:007"},
        {"role": "user", "content": "same", "layer": "working", "tokens": 5, "ref": "message:9"},
        {"role": "assistant", "content": "", "layer": "working", "tokens": 3, "ref": "message:3"},
        {"role": "user", "content": '"\\\n\x00☃', "layer": "input", "tokens": 9, "ref": "input"},
    ]
    odd = ContextPlan.from_dict(data)
    store.plans.save_plan(reply.id, odd)  # replaces the first plan
    assert store.plans.load_plan(reply.id) == odd
    assert sorted(content for content, _ in blob_rows(store)) == ["", '"\\\n\x00☃', "same"]


def test_each_text_is_stored_once_per_conversation_and_freed_with_its_last_plan(
    store: Store,
) -> None:
    conversation = store.conversations.create_conversation()
    other = store.conversations.create_conversation()
    history = history_of(store, conversation.id, ["a", "b", "c", "d"])
    replies = []
    for end in (2, 3, 4):
        plan = assemble_context(
            budget=Budget(1000, 100),
            counter=EstimateCounter(),
            mode=Mode.PERSONALIZATION,
            system_prompt="sys",
            memory=[],
            summary=None,
            history=history[:end],
            new_input=None,
        )
        reply = store.replies.start_reply(conversation.id, model="m")
        store.plans.save_plan(reply.id, plan)
        replies.append(reply.id)
    assert blob_rows(store) == [("sys", 3), ("a", 3), ("b", 3), ("c", 2), ("d", 1)]
    # Another conversation keeps its own copy, so deleting one never touches the other.
    other_reply = store.replies.start_reply(other.id, model="m")
    store.plans.save_plan(other_reply.id, plan)
    assert len(blob_rows(store)) == 10
    store.messages.delete_messages_after(conversation.id, replies[0])
    assert blob_rows(store)[:3] == [("sys", 1), ("a", 1), ("b", 1)]
    assert len(blob_rows(store)) == 8
    store.conversations.delete_conversation(other.id)
    assert blob_rows(store) == [("sys", 1), ("a", 1), ("b", 1)]


def test_saving_a_plan_for_a_missing_message(store: Store) -> None:
    with pytest.raises(NotFound):
        store.plans.save_plan(
            12,
            ContextPlan.from_dict(
                json.loads(
                    '{"format":1,"status":"ok","mode":"objective","budget":{"context_window":9,'
                    '"output_reserve":1,"total":8,"shares":{}},"counter":{"name":"e","exact":'
                    'false,"note":""},"tokens":0,"layers":[],"messages":[]}'
                )
            ),
        )


def test_the_compression_dictionary_never_changes() -> None:
    # Stored plans can only be read with these exact bytes. Add a new codec instead.
    assert hashlib.sha256(DICTIONARY_V1).hexdigest() == (
        "54f29f53e75591932e242ebf59171693eb1838cdb963f34957d38cbb7d6d6a23"
    )


def test_codec_round_trip_without_a_database() -> None:
    history = [HistoryMessage(i, "user", f"text {i}", 5) for i in range(1, 9)]
    plan = assemble_context(
        budget=Budget(1000, 100),
        counter=EstimateCounter(),
        mode=Mode.PERSONALIZATION,
        system_prompt="sys",
        memory=[],
        summary=None,
        history=history,
        new_input="new",
    )
    ids = [100 + index for index in range(len(plan.messages))]
    packed = unpack(pack(plan, ids))
    assert packed.blob_ids == tuple(ids)
    texts = {blob: message.content for blob, message in zip(ids, plan.messages, strict=True)}
    assert rebuild(packed, texts).to_dict() == plan.to_dict()


def test_ten_thousand_replies_cost_little(store: Store, db_path: Path) -> None:
    """10,000 replies, each sent with the 50 messages before it: every text is stored once,
    and a plan costs a few hundred bytes instead of the whole context window again."""
    window = 50
    replies = 10_000
    conversation = store.conversations.create_conversation()
    counter = EstimateCounter()
    with store.transaction():
        history = history_of(
            store,
            conversation.id,
            [f"message {i} " + "lorem ipsum dolor " * (i % 9) for i in range(replies + window)],
        )
    store.checkpoint()
    size_before = db_path.stat().st_size
    naive = 0
    with store.transaction():
        for index in range(replies):
            plan = assemble_context(
                budget=Budget(100_000, 1000),
                counter=counter,
                mode=Mode.PERSONALIZATION,
                system_prompt="You are a helpful assistant.",
                memory=[],
                summary=None,
                history=history[index : index + window],
                new_input=None,
            )
            naive += len(json.dumps(plan.to_dict()))
            store.plans.save_plan(history[index + window].id, plan)
    store.checkpoint()
    with store.reading() as conn:
        blobs = conn.execute("SELECT count(*) FROM plan_blobs").fetchone()[0]
        packed = conn.execute("SELECT sum(length(packed)) FROM reply_plans").fetchone()[0]
    grown = db_path.stat().st_size - size_before
    # Every distinct text once: the messages that were ever in a window, plus the prompt.
    assert blobs == replies + window - 1 + 1
    assert packed < replies * 400
    assert grown < 8 * 1024 * 1024
    assert naive > 20 * grown  # what storing to_dict() JSON per reply would have cost
    reply_id = history[-1].id
    loaded = store.plans.load_plan(reply_id)
    assert loaded is not None
    assert [m.content for m in loaded.messages][1:] == [m.content for m in history[-51:-1]]


def test_a_plan_keeps_the_request_it_went_out_as(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    history = history_of(store, conversation.id, [f"message {i}" for i in range(8)])
    plan = rich_plan(history, conversation.id)
    request = build_chat_request(
        base_url="http://127.0.0.1:8080/v1",
        model="m",
        messages=plan.request_messages(),
        max_tokens=plan.output_reserve,
        headers={"X-Tenant": "acme"},
    )
    plan = dataclasses.replace(plan, request=request.shown())
    reply = store.replies.start_reply(conversation.id, model="m")
    store.plans.save_plan(reply.id, plan)
    loaded = store.plans.load_plan(reply.id)
    assert loaded is not None and loaded.request == request.shown()
    assert loaded.to_dict()["request"]["body"] == request.body
    # The body's messages are not stored twice.
    packed = unpack(pack(plan, list(range(1, len(plan.messages) + 1))))
    assert packed.skeleton["request"]["body"]["messages"] is None
