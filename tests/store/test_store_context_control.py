"""Excluded messages, task states, attached files and what answers cost: stored, upgraded,
exported and imported back."""

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget
from ctxchat.core.files import FilePart
from ctxchat.core.memory import Mode
from ctxchat.core.prices import Billing
from ctxchat.core.task import TaskState
from ctxchat.core.tokens import EstimateCounter
from ctxchat.store import (
    SCHEMA_VERSION,
    InvalidValue,
    NotFound,
    ReplyEnding,
    Store,
    StoreError,
    conversation_markdown,
    schema,
)
from ctxchat.store.attachments import Attachment

from .conftest import Say
from .old_schema import insert_message

PARTS = (FilePart(1, 1, 2, 0, 13, 4), FilePart(2, 3, 3, 13, 19, 3))


def attach_copy(
    store: Store,
    conversation: int,
    path: str = "/work/notes.md",
    content: str = "line one\ntwo\nthree\n",
    parts: tuple[FilePart, ...] = PARTS,
) -> Attachment:
    return store.attachments.attach_file(
        conversation,
        path=path,
        name="notes.md",
        content=content,
        digest=hashlib.sha256(content.encode()).hexdigest(),
        size=len(content),
        mtime=1_700_000_000.5 + len(content),
        tokens=sum(part.tokens for part in parts),
        encoding="o200k_base",
        part_tokens=4,
        parts=parts,
    )


def attach(store: Store, conversation: int, path: str = "/work/notes.md") -> int:
    return attach_copy(store, conversation, path).id


def test_excluding_marks_messages_and_deletes_nothing(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation("c").id
    ids = [say(conversation, role, text).id for role, text in [("user", "q"), ("assistant", "a")]]
    changed = store.exclusions.set_excluded(ids, True)
    assert [m.excluded for m in changed] == [True, True]
    assert store.exclusions.excluded_messages(conversation) == ids
    assert [m.excluded for m in store.messages.history(conversation, "o200k_base")] == [True, True]
    assert [m.sendable for m in store.messages.history(conversation, "o200k_base")] == [
        False,
        False,
    ]
    assert store.messages.count_messages(conversation) == 2
    store.exclusions.set_excluded(ids[1:], False)
    assert store.exclusions.excluded_messages(conversation) == ids[:1]
    other = store.conversations.create_conversation("d").id
    elsewhere = say(other, "user", "x").id
    with pytest.raises(InvalidValue, match="different conversations"):
        store.exclusions.set_excluded([ids[0], elsewhere], True)
    with pytest.raises(NotFound):
        store.exclusions.set_excluded([99_999], True)
    assert store.exclusions.excluded_messages(conversation) == ids[:1]  # nothing half done


def test_a_task_is_kept_whole_and_an_empty_one_goes(store: Store) -> None:
    conversation = store.conversations.create_conversation("c").id
    assert store.tasks.task(conversation) == TaskState()
    task = TaskState("Ship it").with_step("Write tests").with_step("Merge").with_done(1)
    assert store.tasks.save_task(conversation, task) == task
    assert store.tasks.task(conversation) == task
    assert store.tasks.save_task(conversation, TaskState()) == TaskState()
    with store.reading() as conn:
        assert conn.execute("SELECT count(*) FROM tasks").fetchone()[0] == 0
    store.tasks.save_task(conversation, task)
    store.conversations.delete_conversation(conversation)
    with store.reading() as conn:
        assert conn.execute("SELECT count(*) FROM tasks").fetchone()[0] == 0


def test_attaching_again_reads_anew_under_the_same_id(store: Store) -> None:
    conversation = store.conversations.create_conversation("c").id
    first = attach(store, conversation)
    (attached,) = store.attachments.attachments(conversation)
    assert (attached.id, attached.parts, attached.part_tokens) == (first, PARTS, 4)
    assert attached.to_file().part_text(PARTS[1]) == "three\n"
    refreshed = attach_copy(
        store, conversation, content="new\n", parts=(FilePart(1, 1, 1, 0, 4, 2),)
    )
    assert (refreshed.id, refreshed.content, refreshed.attached_at) == (
        first,
        "new\n",
        attached.attached_at,
    )
    assert refreshed.read_at > attached.read_at
    assert store.attachments.detach_file(conversation, "/work/notes.md").id == first
    assert store.attachments.attachments(conversation) == []
    with pytest.raises(InvalidValue, match=r"No file is attached from /work/notes\.md"):
        store.attachments.detach_file(conversation, "/work/notes.md")


def test_answers_with_their_usage_and_billing_are_read_for_costs(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation("c").id
    say(conversation, "user", "q")
    say(conversation, "assistant", "copied into a branch: no request was made")
    reply = store.replies.start_reply(conversation, model="gpt-4o", estimated_prompt_tokens=100)
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(
            content="a",
            tokens=5,
            exact=True,
            encoding="o200k_base",
            prompt_tokens=120,
            completion_tokens=7,
            cached_tokens=64,
            billing=Billing.PRICED,
        ),
    )
    answers = store.costs.billed_answers(conversation)
    assert [(a.kind, a.id) for a in answers] == [("reply", reply.id)]
    usage = answers[0].usage
    assert (usage.model, usage.billing, usage.prompt_tokens, usage.cached_tokens) == (
        "gpt-4o",
        Billing.PRICED,
        120,
        64,
    )
    assert store.messages.get_message(reply.id).billing == "priced"
    assert store.costs.billed_answers(since=answers[0].created_at + 1) == []


@pytest.mark.parametrize("version", [13, 11], ids=["the schema before", "an older schema"])
def test_a_database_of_an_earlier_schema_is_upgraded_with_nothing_left_out(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:version])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", version)
    with Store.open(db_path) as old:
        conversation = old.conversations.create_conversation("kept").id
        insert_message(old, conversation, "user", "question")
    monkeypatch.undo()
    with Store.open(db_path) as store:
        (message,) = store.messages.messages(conversation)
        assert (message.excluded, message.billing) == (False, None)
        assert (
            store.tasks.task(conversation) == TaskState()
            and store.attachments.attachments(conversation) == []
        )
        with store.reading() as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def conversation_with_everything(store: Store, say: Say) -> int:
    store.conversations.create_conversation("unrelated")
    conversation = store.conversations.create_conversation("Context control").id
    attach(store, store.conversations.create_conversation("another").id, "/elsewhere")
    question = say(conversation, "user", "Paste the log?").id
    answer = say(conversation, "assistant", "LOG " * 50).id
    say(conversation, "user", "What next?")
    store.exclusions.set_excluded([question, answer], True)
    store.tasks.save_task(conversation, TaskState("Ship it").with_step("Write tests").with_done(1))
    file_id = attach(store, conversation)
    file = store.attachments.attachments(conversation)[0].to_file()
    plan = assemble_context(
        budget=Budget(2_000, 500),
        counter=EstimateCounter(),
        mode=Mode.PERSONALIZATION,
        system_prompt="Be brief.",
        memory=[],
        summary=None,
        history=store.messages.history(conversation, "estimate"),
        new_input=None,
        task=store.tasks.task(conversation),
        files=[file],
        adaptive=AdaptivePolicy(task_share=0.05, files_share=0.25),
    )
    assert any(item.ref == f"file:{file_id}" for layer in plan.layers for item in layer.items)
    reply = store.replies.start_reply(
        conversation, model="gpt-4o", estimated_prompt_tokens=plan.tokens
    )
    store.plans.save_plan(reply.id, plan)
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(
            content="Done.",
            tokens=3,
            exact=False,
            encoding="estimate",
            prompt_tokens=90,
            completion_tokens=2,
            billing=Billing.PRICED,
        ),
    )
    return conversation


def without_ids(export: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(export))
    messages = {m["id"]: f"#m{i}" for i, m in enumerate(data["messages"])}
    files = {a["id"]: f"#f{i}" for i, a in enumerate(data["attachments"])}
    del data["conversation"]["id"]
    for message in data["messages"]:
        message["id"] = messages[message["id"]]
        message["parent_id"] = messages.get(message["parent_id"])
    for attachment in data["attachments"]:
        attachment["id"] = files[attachment["id"]]
    for stored in data["plans"]:
        stored["message_id"] = messages[stored["message_id"]]
        for layer in stored["plan"]["layers"]:
            for item in (*layer["items"], *layer["left_out"]):
                kind, _, rest = item["ref"].partition(":")
                number, mark, part = rest.partition("#")
                if kind == "file":
                    item["ref"] = f"file:{files[int(number)]}{mark}{part}"
                elif kind == "message":
                    item["ref"] = f"message:{messages[int(rest)]}"
        for message in stored["plan"]["messages"]:
            if message["ref"].startswith("message:"):
                message["ref"] = "message:" + messages[int(message["ref"][8:])]
    return data


def test_exclusions_task_files_and_billing_survive_export_and_import(
    store: Store, say: Say, tmp_path: Path
) -> None:
    original = store.transfer.export_conversation(conversation_with_everything(store, say))
    assert [m["excluded"] for m in original["messages"]] == [True, True, False, False]
    assert original["messages"][-1]["billing"] == "priced"
    assert original["task"] == {
        "goal": "Ship it",
        "steps": [{"text": "Write tests", "done": True}],
    }
    assert [a["name"] for a in original["attachments"]] == ["notes.md"]
    with Store.open(tmp_path / "elsewhere.db") as other:
        other.conversations.create_conversation("first")
        shifting = other.conversations.create_conversation("shifts the file ids").id
        for path in ("/x", "/y", "/z"):
            attach(other, shifting, path)
        imported = other.transfer.import_conversation(json.loads(json.dumps(original)))
        again = other.transfer.export_conversation(imported)
        assert again["attachments"][0]["id"] != original["attachments"][0]["id"]
        assert without_ids(again) == without_ids(original)
        assert other.exclusions.excluded_messages(imported) == [
            m["id"] for m in again["messages"][:2]
        ]
        assert [a.usage.billing for a in other.costs.billed_answers(imported)] == [Billing.PRICED]


def test_an_export_from_before_imports_with_nothing_excluded_or_attached(
    store: Store, say: Say
) -> None:
    export = store.transfer.export_conversation(conversation_with_everything(store, say))
    del export["task"], export["attachments"]
    for message in export["messages"]:
        del message["excluded"], message["billing"]
    export["plans"] = []
    imported = store.transfer.import_conversation(export)
    assert store.exclusions.excluded_messages(imported) == []
    assert (
        store.tasks.task(imported) == TaskState() and store.attachments.attachments(imported) == []
    )
    assert [a.usage.billing for a in store.costs.billed_answers(imported)] == [None]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda data: data["messages"][0].update(excluded="yes"),
            "messages[0].excluded: expected true or false",
        ),
        (
            lambda data: data["messages"][0].update(billing="cheap"),
            "messages[0].billing: expected one of free, priced, or null",
        ),
        (
            lambda data: data["task"].update(steps=[{"text": 3, "done": False}]),
            "task.steps: expected a list of steps, each with text and done",
        ),
        (
            lambda data: data["attachments"][0].update(parts=[[1, 2]]),
            "attachments[0].parts: expected a list of parts, each six whole numbers",
        ),
        (
            lambda data: data["attachments"][0].pop("content"),
            "attachments[0].content: missing",
        ),
    ],
)
def test_a_damaged_export_is_refused_before_anything_is_written(
    store: Store, say: Say, change: Any, problem: str
) -> None:
    export = store.transfer.export_conversation(conversation_with_everything(store, say))
    change(export)
    before = len(store.conversations.list_conversations())
    with pytest.raises(StoreError) as caught:
        store.transfer.import_conversation(export)
    assert problem in str(caught.value)
    assert len(store.conversations.list_conversations()) == before


def test_the_markdown_export_marks_excluded_turns_and_lists_the_task_and_files(
    store: Store, say: Say
) -> None:
    text = conversation_markdown(
        store.transfer.export_conversation(conversation_with_everything(store, say))
    )
    assert text.count("> *Left out of the requests by you (kept, not sent).*") == 2
    assert "## Task\n\nGoal: Ship it\n\n1. [done] Write tests\n" in text
    assert "## Attached files\n\n- notes.md (7 tokens, 19 bytes)\n" in text


def test_a_branch_keeps_what_was_left_out_the_task_and_the_attached_files(
    store: Store, say: Say
) -> None:
    conversation = store.conversations.create_conversation("Original").id
    question = say(conversation, "user", "Paste the log?")
    say(conversation, "assistant", "LOG " * 50)
    edited = say(conversation, "user", "What next?")
    store.exclusions.set_excluded([question.id], True)
    task = store.tasks.save_task(conversation, TaskState("Ship it").with_step("Write tests"))
    original_file = attach_copy(store, conversation)

    branch = store.branches.branch_conversation(
        conversation, edited.id, "What now?", tokens=4, exact=False, encoding="estimate", model=None
    )

    messages = store.messages.messages(branch)
    assert [(m.content, m.excluded) for m in messages] == [
        ("Paste the log?", True),
        ("LOG " * 50, False),
        ("What now?", False),
    ]
    assert store.tasks.task(branch) == task
    (file,) = store.attachments.attachments(branch)
    assert file.id != original_file.id
    assert dataclasses.replace(file, id=original_file.id, conversation_id=conversation) == (
        original_file
    )
    # The original keeps its own.
    assert store.exclusions.excluded_messages(conversation) == [question.id]
    assert [a.id for a in store.attachments.attachments(conversation)] == [original_file.id]
