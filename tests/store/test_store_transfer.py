"""Export and import: JSON that round-trips exactly, under new ids; and the Markdown export."""

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget
from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import Mode
from ctxchat.core.summary_loss import LostDetail
from ctxchat.core.tokens import EstimateCounter
from ctxchat.store import ReplyEnding, Store, StoredMessage, StoreError, conversation_markdown

from .endings import failed_with

Say = Callable[[int, str, str], StoredMessage]


def canonical(export: dict[str, Any]) -> dict[str, Any]:
    """The export with every id replaced by the position of what it names, so two exports of
    the same conversation under different ids compare equal, and any other difference shows."""
    data: dict[str, Any] = json.loads(json.dumps(export))
    messages = {m["id"]: f"#m{i}" for i, m in enumerate(data["messages"])}
    memory = {e["id"]: f"#k{i}" for i, e in enumerate(data["memory"])}
    memory |= {e["id"]: f"#g{i}" for i, e in enumerate(data["global_memory"])}

    def ref(text: str) -> str:
        text = re.sub(r"^message:(\d+)$", lambda m: f"message:{messages[int(m[1])]}", text)
        text = re.sub(
            r"^messages:(\d+)-(\d+)$",
            lambda m: f"messages:{messages[int(m[1])]}-{messages[int(m[2])]}",
            text,
        )
        return re.sub(r"^memory:(\d+)$", lambda m: f"memory:{memory[int(m[1])]}", text)

    del data["conversation"]["id"]
    for message in data["messages"]:
        message["id"] = messages[message["id"]]
        message["parent_id"] = messages.get(message["parent_id"])
    for summary in data["summaries"]:
        del summary["id"]
        summary["first_message_id"] = messages[summary["first_message_id"]]
        summary["last_message_id"] = messages[summary["last_message_id"]]
        for lost in summary.get("lost", ()):
            lost["message_id"] = messages[lost["message_id"]]
    for stored in data["plans"]:
        stored["message_id"] = messages[stored["message_id"]]
        plan = stored["plan"]
        for layer in plan["layers"]:
            for item in (*layer["items"], *layer["left_out"]):
                item["ref"] = ref(item["ref"])
        for message in plan["messages"]:
            message["ref"] = ref(message["ref"])
    for entry in (*data["memory"], *data["global_memory"]):
        entry["id"] = memory[entry["id"]]
        entry["source"] = ref(entry["source"])
        entry["superseded_by"] = memory.get(entry["superseded_by"])
    for entry in data["global_memory"]:
        # A global entry already present is reused: its hypothesis clock goes on counting the
        # turns the import added.
        del entry["turns_waited"]
    return data


def build_conversation(store: Store) -> int:
    """A conversation using every field: statuses, reasoning, usage, branches, summaries,
    plans that refer to messages and memory, scoped and global memory."""
    store.conversations.create_conversation("unrelated")  # so ids differ from a fresh database's
    conversation = store.conversations.create_conversation(
        "Планы: SQLite", model="gpt-4o", profile="local"
    )
    store.memory.add_memory("constraint", "Standard library only.", pinned=True, tags=["tech"])
    store.memory.add_memory("preference", "Short answers", key="style", importance=3)
    ids: list[int] = []
    for index in range(12):
        role = "user" if index % 2 == 0 else "assistant"
        text = f"Сообщение {index}: " + "text with `code` " * (index % 5)
        ids.append(
            store.messages.add_message(
                conversation.id,
                role,
                text,
                tokens=10 + index,
                exact=index % 3 != 0,
                encoding="o200k_base" if index % 3 else "estimate",
                model="gpt-4o" if role == "assistant" else None,
                parent_id=ids[-1] if ids else None,
            ).id
        )
    store.memory.add_memory(
        "fact",
        "Chose WAL mode.",
        conversation_id=conversation.id,
        source=f"message:{ids[3]}",
        enabled=False,
        importance=9,
    )
    store.summaries.add_summary(
        conversation.id,
        text="v1 text",
        first_message_id=ids[0],
        last_message_id=ids[3],
        strategy="semantic",
        model="gpt-4o-mini",
        tokens=7,
    )
    second = store.summaries.add_summary(
        conversation.id,
        text="v2 text",
        first_message_id=ids[0],
        last_message_id=ids[5],
        strategy="keyvalue",
        model=None,
        tokens=9,
        edited=True,
        note="edited by hand",
        cut=True,
        lost=[LostDetail("8771", DetailKind.NUMBER, ids[4], "Use port 8771.")],
    )
    store.summaries.mark_summary_reviewed(second.id)
    store.summaries.activate_summary(
        conversation.id, store.summaries.summaries(conversation.id)[0].id
    )
    for status, error in ((MessageStatus.INTERRUPTED, None), (MessageStatus.FAILED, "HTTP 500")):
        history = store.messages.history(conversation.id, "o200k_base")
        plan = assemble_context(
            budget=Budget(600, 100),
            counter=EstimateCounter(),
            mode=Mode.PERSONALIZATION,
            system_prompt="Be brief.",
            memory=store.memory.list_memory(conversation_id=conversation.id),
            summary=second.state(),
            history=history,
            new_input=None,
            conversation_id=conversation.id,
            options=AssemblyOptions(min_recent=2),
        )
        reply = store.replies.start_reply(
            conversation.id, model="gpt-4o", estimated_prompt_tokens=321
        )
        store.plans.save_plan(reply.id, plan)
        store.replies.save_partial(reply.id, "partial", "reasoning so far")
        store.replies.finish_reply(
            reply.id,
            ReplyEnding(
                content="partial answer" if error is None else "",
                reasoning="reasoning",
                status=status,
                tokens=5,
                exact=True,
                encoding="o200k_base",
                finish_reason="length" if error is None else None,
                prompt_tokens=330,
                completion_tokens=4,
                cached_tokens=128,
                error=error,
                error_detail=None if error is None else "upstream: out of memory",
            ),
        )
    return conversation.id


def test_export_holds_everything_as_json_ready_data(store: Store) -> None:
    conversation_id = build_conversation(store)
    export = store.transfer.export_conversation(conversation_id)
    assert json.loads(json.dumps(export)) == export
    assert (export["format"], export["version"]) == ("ctxchat-conversation", 1)
    assert export["conversation"]["title"] == "Планы: SQLite"
    assert export["conversation"]["active_summary_version"] == 1
    assert len(export["messages"]) == 14
    assert [s["version"] for s in export["summaries"]] == [1, 2]
    second = export["summaries"][1]
    assert (second["cut"], second["reviewed"]) == (True, True)
    assert second["lost"] == [
        {
            "text": "8771",
            "kind": "number",
            "message_id": export["messages"][4]["id"],
            "context": "Use port 8771.",
        }
    ]
    assert len(export["plans"]) == 2
    assert [e["text"] for e in export["memory"]] == ["Chose WAL mode."]
    assert [e["text"] for e in export["global_memory"]] == [
        "Standard library only.",
        "Short answers",
    ]
    failed = export["messages"][-1]
    assert (failed["status"], failed["error"], failed["cached_tokens"]) == (
        "failed",
        "HTTP 500",
        128,
    )
    assert failed["error_detail"] == "upstream: out of memory"
    refs = [m["ref"] for m in export["plans"][0]["plan"]["messages"]]
    assert "memory" in refs and any(r.startswith("message:") for r in refs)


def test_import_then_export_gives_the_same_conversation_under_new_ids(store: Store) -> None:
    original = store.transfer.export_conversation(build_conversation(store))
    imported_id = store.transfer.import_conversation(original)
    again = store.transfer.export_conversation(imported_id)
    assert again["conversation"]["id"] != original["conversation"]["id"]
    assert again["messages"][0]["id"] != original["messages"][0]["id"]
    assert canonical(again) == canonical(original)
    # Global memory already present is reused, not duplicated.
    assert len(store.memory.list_memory(include_all_scopes=True)) == 4
    # The imported copy is a conversation like any other.
    plan = store.plans.load_plan(again["messages"][-1]["id"])
    assert plan is not None and plan.to_dict() == again["plans"][-1]["plan"]
    summary = store.summaries.active_summary(imported_id)
    assert summary is not None and summary.text == "v1 text"
    second = store.summaries.summaries(imported_id)[1]
    assert second.cut and second.reviewed and not second.flagged
    assert [i.message_id for i in second.lost] == [again["messages"][4]["id"]]


def test_import_into_another_database_round_trips(store: Store, tmp_path: Path) -> None:
    original = store.transfer.export_conversation(build_conversation(store))
    with Store.open(tmp_path / "elsewhere.db") as other:
        imported_id = other.transfer.import_conversation(json.loads(json.dumps(original)))
        assert canonical(other.transfer.export_conversation(imported_id)) == canonical(original)
        assert len(other.memory.list_memory(include_all_scopes=True)) == 3


def test_an_entry_switched_off_in_the_conversation_stays_off_in_its_import(
    store: Store, tmp_path: Path
) -> None:
    garden = store.conversations.create_conversation("Garden").id
    other = store.conversations.create_conversation("Other").id
    soil = store.memory.add_memory("fact", "The soil is clay.")
    sun = store.memory.add_memory("fact", "The bed gets full sun.")
    store.memory.switch_memory(soil.id, garden, on=False)
    store.memory.switch_memory(sun.id, other, on=False)  # another conversation's: not carried
    export = store.transfer.export_conversation(garden)
    assert [(e["text"], e["off_here"]) for e in export["global_memory"]] == [
        ("The soil is clay.", True),
        ("The bed gets full sun.", False),
    ]
    with Store.open(tmp_path / "elsewhere.db") as elsewhere:
        imported = elsewhere.transfer.import_conversation(json.loads(json.dumps(export)))
        assert [
            (e.text, e.off_in) for e in elsewhere.memory.list_memory(conversation_id=imported)
        ] == [
            ("The soil is clay.", {imported}),
            ("The bed gets full sun.", frozenset()),
        ]
    # Into the same database: the entry is reused, off in the copy as in the original.
    copy = store.transfer.import_conversation(export)
    assert store.memory.get_memory(soil.id).off_in == {garden, copy}
    assert store.memory.get_memory(sun.id).off_in == {other}
    # An export from before entries could be switched off imports with them on.
    for entry in export["global_memory"]:
        del entry["off_here"]
    older = store.transfer.import_conversation(export)
    assert older not in store.memory.get_memory(soil.id).off_in


def test_a_conversations_project_and_its_entries_travel_with_it(
    store: Store, tmp_path: Path
) -> None:
    project = store.projects.create_project("Allotment").id
    beds = store.conversations.create_conversation("Beds").id
    store.projects.move_to_project(beds, project)
    store.memory.add_memory("fact", "The soil is clay.", project_id=project)
    store.memory.add_memory("fact", "Lives in Porto.")
    export = json.loads(json.dumps(store.transfer.export_conversation(beds)))
    assert export["conversation"]["project"] == "Allotment"
    assert [e["text"] for e in export["project_memory"]] == ["The soil is clay."]
    assert [e["text"] for e in export["global_memory"]] == ["Lives in Porto."]
    with Store.open(tmp_path / "elsewhere.db") as elsewhere:
        imported = elsewhere.transfer.import_conversation(export)
        assert [(p.name, p.conversations, p.entries) for p in elsewhere.projects.projects()] == [
            ("Allotment", 1, 1)
        ]
        assert [
            (e.text, e.scope_words) for e in elsewhere.memory.list_memory(conversation_id=imported)
        ] == [
            ("Lives in Porto.", "global"),
            ("The soil is clay.", "project Allotment"),
        ]
    # Into the same database: the project and its entry are reused, not doubled.
    copy = store.transfer.import_conversation(export)
    assert store.projects.conversation_project(copy) == project
    assert [(p.conversations, p.entries) for p in store.projects.projects()] == [(2, 1)]
    # An export from before projects imports into none.
    del export["conversation"]["project"], export["project_memory"]
    assert store.projects.conversation_project(store.transfer.import_conversation(export)) is None


def test_import_refuses_what_it_cannot_read(store: Store) -> None:
    with pytest.raises(StoreError) as wrong:
        store.transfer.import_conversation({"format": "something else"})
    assert str(wrong.value) == "This is not a ctxchat conversation export."
    with pytest.raises(StoreError) as newer:
        store.transfer.import_conversation({"format": "ctxchat-conversation", "version": 2})
    assert str(newer.value) == (
        "This export has format version 2; this ctxchat reads up to 1. "
        "Upgrade ctxchat to import it."
    )
    export = store.transfer.export_conversation(build_conversation(store))
    before = store.conversations.list_conversations()
    broken = json.loads(json.dumps(export))
    del broken["messages"][3]["content"]
    with pytest.raises(StoreError) as damaged:
        store.transfer.import_conversation(broken)
    assert str(damaged.value) == (
        "The export does not match ctxchat's format, so nothing was imported: "
        "messages[3].content: missing."
    )
    bad_status = json.loads(json.dumps(export))
    bad_status["messages"][0]["status"] = "exploded"
    with pytest.raises(StoreError):
        store.transfer.import_conversation(bad_status)
    # Nothing half-imported was left behind.
    assert store.conversations.list_conversations() == before


@pytest.mark.parametrize(
    ("where", "value", "problem"),
    [
        (("messages", 1, "content"), ["a", "list"], "messages[1].content: expected text"),
        (("messages", 1, "content"), {"an": "object"}, "messages[1].content: expected text"),
        (("messages", 0, "created_at"), "yesterday", "messages[0].created_at: expected a number"),
        (("messages", 2, "tokens"), "12", "messages[2].tokens: expected a whole number"),
        (("messages", 2, "tokens"), 2**70, "messages[2].tokens: expected a whole number from"),
        (("conversation", "updated_at"), 1e300, "conversation.updated_at: expected a time"),
        (("messages", 0, "updated_at"), -5, "messages[0].updated_at: expected a time"),
        (("messages", 0, "role"), "wizard", "messages[0].role: expected one of"),
        (("memory", 0, "importance"), 11, "memory[0].importance: expected a whole number"),
        (("global_memory", 0, "tags"), [1], "global_memory[0].tags: expected a list of text"),
        (("global_memory", 0, "off_here"), "no", "global_memory[0].off_here: expected true"),
        (("summaries",), {"not": "a list"}, "summaries: expected a list"),
        (("summaries", 1, "lost"), [{"text": "x"}], "summaries[1].lost: expected a list of"),
        (("summaries", 1, "cut"), "yes", "summaries[1].cut: expected true or false"),
        (("plans", 0, "plan"), {"layers": 3}, "plans[0].plan: expected a context plan"),
        (("messages", 1, "content"), "\ud800", "messages[1].content: expected text (it holds"),
    ],
)
def test_an_export_with_wrong_values_imports_nothing_and_names_them(
    store: Store, where: tuple[Any, ...], value: Any, problem: str
) -> None:
    export = json.loads(json.dumps(store.transfer.export_conversation(build_conversation(store))))
    before = (
        store.conversations.list_conversations(),
        store.memory.list_memory(include_all_scopes=True),
    )
    target = export
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    with pytest.raises(StoreError) as caught:
        store.transfer.import_conversation(export)
    assert f"nothing was imported: {problem}" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert (
        store.conversations.list_conversations(),
        store.memory.list_memory(include_all_scopes=True),
    ) == before


def test_markdown_export(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation("Weekend", model="gpt-4o")
    question = say(conversation.id, "user", "Plan a hike?")
    cut = store.replies.start_reply(conversation.id, model="gpt-4o")
    store.replies.finish_reply(
        cut.id,
        ReplyEnding(
            content="Start early and",
            status=MessageStatus.INTERRUPTED,
            tokens=8,
            exact=True,
            encoding="o200k_base",
        ),
    )
    failed = store.replies.start_reply(conversation.id, model="gpt-4o")
    store.replies.finish_reply(
        failed.id,
        failed_with("Connection reset"),
    )
    store.summaries.add_summary(
        conversation.id,
        text="They plan a hike.",
        first_message_id=question.id,
        last_message_id=cut.id,
        strategy="summarize",
        model="gpt-4o-mini",
        tokens=1234,
        edited=True,
        note="shortened",
    )
    markdown = conversation_markdown(store.transfer.export_conversation(conversation.id))
    assert markdown == (
        "# Weekend\n"
        "\n"
        "*Started 1970-01-01 00:16 UTC, model gpt-4o.*\n"
        "\n"
        "## User\n"
        "\n"
        "Plan a hike?\n"
        "\n"
        "## Assistant\n"
        "\n"
        "Start early and\n"
        "\n"
        "> *Interrupted: the reply was cut off here.*\n"
        "\n"
        "## Assistant\n"
        "\n"
        "> **Failed:** Connection reset\n"
        "\n"
        "---\n"
        "\n"
        "## Summary versions\n"
        "\n"
        "### v1 (messages 1–2, summarize, gpt-4o-mini, 1,234 tokens, edited) — in force\n"
        "\n"
        "*shortened*\n"
        "\n"
        "They plan a hike.\n"
    )


def test_a_messages_own_headings_sit_under_its_role_in_markdown(store: Store, say: Say) -> None:
    """A reply's `## Step 1` would read as a turn of its own beside `## Assistant`: its
    headings go two levels deeper; code blocks and their `#` lines stay as written."""
    conversation = store.conversations.create_conversation("Setup", model="gpt-4o")
    say(conversation.id, "user", "How?")
    say(
        conversation.id,
        "assistant",
        "## Step 1\nInstall.\n```sh\n# as root\n## still code\n```\nStep 2\n------\nRun it.",
    )
    markdown = conversation_markdown(store.transfer.export_conversation(conversation.id))
    headings = [line for line in markdown.splitlines() if line.startswith("#")]
    assert headings == [
        "# Setup",
        "## User",
        "## Assistant",
        "#### Step 1",
        "# as root",
        "## still code",
        "#### Step 2",
    ]
    assert "```sh\n# as root\n## still code\n```" in markdown


def test_a_summarys_own_headings_sit_under_its_version_in_markdown(store: Store, say: Say) -> None:
    """A summary written with `## Decisions` would read as a section beside `## Summary
    versions`: its headings go below its `### v1` line."""
    conversation = store.conversations.create_conversation("Setup", model="gpt-4o")
    first = say(conversation.id, "user", "How?")
    store.summaries.add_summary(
        conversation.id,
        text="# Goal\nA hike.\n## Decisions\nStart early.",
        first_message_id=first.id,
        last_message_id=first.id,
        strategy="summarize",
        model=None,
        tokens=10,
    )
    markdown = conversation_markdown(store.transfer.export_conversation(conversation.id))
    headings = [line for line in markdown.splitlines() if line.startswith("#")]
    assert headings == [
        "# Setup",
        "## User",
        "## Summary versions",
        "### v1 (messages 1–1, summarize, 10 tokens) — in force",
        "#### Goal",
        "##### Decisions",
    ]


def test_an_export_from_before_error_details_imports(store: Store) -> None:
    original = store.transfer.export_conversation(build_conversation(store))
    for message in original["messages"]:
        del message["error_detail"]
    imported = store.messages.messages(store.transfer.import_conversation(original))
    assert imported[-1].error == "HTTP 500"
    assert all(m.error_detail is None for m in imported)


def test_an_export_from_before_loss_reports_imports(store: Store) -> None:
    original = store.transfer.export_conversation(build_conversation(store))
    for summary in original["summaries"]:
        for name in ("cut", "lost", "reviewed", "faults", "waiting"):
            del summary[name]
    imported = store.summaries.summaries(store.transfer.import_conversation(original))
    assert [(s.cut, s.lost, s.reviewed) for s in imported] == [(False, (), False)] * 2
    assert [(s.faults, s.waiting) for s in imported] == [((), False)] * 2


def test_a_summary_held_for_review_travels_held(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation("Held").id
    first = say(conversation, "user", "Ship on Mondays.")
    last = say(conversation, "assistant", "Noted.")
    store.summaries.add_summary(
        conversation,
        text="Write the summary.",
        first_message_id=first.id,
        last_message_id=last.id,
        strategy="summarize",
        model="m",
        tokens=4,
        faults=["repeats its own instructions (“Write the summary.”)"],
        waiting=True,
    )
    moved = store.transfer.import_conversation(store.transfer.export_conversation(conversation))
    (held,) = store.summaries.summaries(moved)
    assert held.waiting and held.faults == ("repeats its own instructions (“Write the summary.”)",)
    assert store.summaries.active_summary(moved) is None
    assert store.summaries.waiting_summary(moved) == held
