"""Excluding turns, the task state and its proposals, attached files, and what replies cost,
through a session against the scripted server."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import AsyncIterator
from datetime import tzinfo
from pathlib import Path

import pytest

from ctxchat.chat.attachments import AttachRefused, complete_path, shown_name
from ctxchat.chat.context_planning import local_zone
from ctxchat.chat.costs import billing_for, cost_status_text, cost_summary, day_costs
from ctxchat.chat.exclusions import change_exclusion, exclusion_difference
from ctxchat.chat.extractor import extract_facts
from ctxchat.chat.session import ChatSession
from ctxchat.chat.task_book import TaskDecision
from ctxchat.chat.turn import TurnEvent, TurnFinished, send_message
from ctxchat.chat.window import WindowInfo
from ctxchat.config.settings import FilesSettings, Settings
from ctxchat.core.budget import Layer
from ctxchat.core.files import DiskState
from ctxchat.core.plan import Reason
from ctxchat.core.prices import Billing, Pricing
from ctxchat.core.task import TaskAction, TaskError, TaskProposal
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import InvalidValue, Store
from ctxchat.testing.server import ScriptedModelServer

from .conftest import make_settings


async def collect(events: AsyncIterator[TurnEvent]) -> list[TurnEvent]:
    return [event async for event in events]


def left_out(session: ChatSession, layer: Layer) -> list[tuple[str, Reason]]:
    return [(o.ref, o.reason) for o in session.plan(None).layer(layer).left_out]


# --- leaving a turn out -------------------------------------------------------------------


async def test_an_excluded_pair_is_never_sent_yet_still_found(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    server.script("Here is the zanzibar log dump.", "Restore the dump.", "Fine.")
    await collect(send_message(session, "Paste the zanzibar log?"))
    await collect(send_message(session, "What next?"))
    question = session.history()[0].id
    requests = len(server.requests)

    # The difference is told before anything changes or is sent.
    told = exclusion_difference(session, question, pair=True)
    assert (
        len(server.requests),
        session.store.exclusions.excluded_messages(session.stored_id),
    ) == (
        requests,
        [],
    )
    change = change_exclusion(session, question, pair=True)
    assert change.ids == (question, question + 1)
    assert change.difference == told
    assert told.tokens < 0 and told.messages_after == told.messages_before - 2
    assert change.describe().startswith(f"Excluded messages #{question} and #{question + 1}: ")
    assert left_out(session, Layer.WORKING) == [
        (f"message:{question}", Reason.EXCLUDED),
        (f"message:{question + 1}", Reason.EXCLUDED),
    ]

    # Recall finds it, and leaves it out; search still finds it.
    plan = session.plan("Show me the zanzibar log again")
    assert [(o.ref, o.detail) for o in plan.layer(Layer.RECALL).left_out][:1] == [
        (f"message:{question}", "excluded by you: recall found it and leaves it out")
    ]
    assert session.stored_id in session.store.search.find_conversations("zanzibar")
    await collect(send_message(session, "Go on"))
    sent = json.dumps(server.requests[-1]["messages"])
    assert "zanzibar" not in sent and "What next?" in sent

    included = change_exclusion(session, question, excluded=False, pair=True)
    assert included.difference.tokens > 0
    assert left_out(session, Layer.WORKING) == []


def test_another_session_of_the_run_sees_an_exclusion(session: ChatSession) -> None:
    first = session.add_user_message("One")
    other = session.for_conversation(session.conversation_id)
    assert other.plan(None).layer(Layer.WORKING).left_out == ()
    change_exclusion(session, first.id)
    assert [o.ref for o in other.plan(None).layer(Layer.WORKING).left_out] == [
        f"message:{first.id}"
    ]


def test_a_message_of_another_conversation_cannot_be_excluded(session: ChatSession) -> None:
    elsewhere = session.store.conversations.create_conversation("other").id
    stranger = session.store.messages.add_message(
        elsewhere, "user", "x", tokens=4, exact=True, encoding="o200k_base"
    )
    with pytest.raises(InvalidValue, match=f"Message {stranger.id} is not in conversation"):
        change_exclusion(session, stranger.id)


# --- the task state -----------------------------------------------------------------------


def test_the_task_book_changes_what_the_next_request_sends(session: ChatSession) -> None:
    book = session.task_book
    book.set_goal("Migrate billing")
    book.add_step("Dump the database")
    book.add_step("Restore it")
    book.mark_done(1)
    plan = session.plan("Next?")
    task = plan.layer(Layer.TASK)
    assert [item.ref for item in task.items] == ["task:goal", "task:1", "task:2"]
    assert plan.share_notes[0] == "the conversation has a task: it takes 5% from working"
    content = next(m.content for m in plan.messages if m.layer is Layer.TASK)
    assert "1. [done] Dump the database\n2. [pending] Restore it\n" in content
    with pytest.raises(TaskError, match="there is no step 3"):
        book.mark_done(3)
    book.remove_step(1)
    assert [item.text for item in session.task().items] == ["Restore it"]
    # Kept in the store: another session reads it.
    assert session.for_conversation(session.conversation_id).task() == session.task()
    book.clear()
    assert session.plan(None).layer(Layer.TASK).items == ()


async def test_the_model_proposes_task_changes_and_only_accepted_ones_are_made(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.task_book.set_goal("Migrate billing")
    session.task_book.add_step("Dump the database")
    message = session.add_user_message("The dump is done; next we switch the DSN.")
    server.script(
        json.dumps(
            [
                {"task": "done", "step": 1, "message_id": message.id},
                {"task": "add", "text": "Switch the DSN", "message_id": message.id},
                {"task": "goal", "text": "Migrate billing to pg16"},
            ]
        )
    )
    result = await extract_facts(session)
    assert [(p.action, p.text) for p in result.task_proposals] == [
        (TaskAction.DONE, "Dump the database"),
        (TaskAction.ADD, "Switch the DSN"),
        (TaskAction.GOAL, "Migrate billing to pg16"),
    ]
    sent = server.requests[-1]["messages"]
    assert '{"task": "done", "step": N}' in sent[0]["content"]
    assert "1. [pending] Dump the database" in sent[1]["content"]
    assert session.task().items[0].done is False  # nothing changes until accepted
    done, add, goal = result.task_proposals
    stale = TaskProposal(TaskAction.DONE, "Write the report", 7)
    task, skipped = session.task_book.apply(
        [
            TaskDecision(done, True),
            TaskDecision(add, True, text="Switch the DSN to pg16-a"),
            TaskDecision(goal, False),
            TaskDecision(stale, True),  # the task changed since: said, not made
        ]
    )
    assert [(i.text, i.done) for i in task.items] == [
        ("Dump the database", True),
        ("Switch the DSN to pg16-a", False),
    ]
    assert task.goal == "Migrate billing" and session.task() == task
    assert skipped == [
        "mark step 7 done: Write the report: there is no step 7: the task has steps 1 to 2"
    ]


# --- attached files -----------------------------------------------------------------------


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


async def test_an_attached_file_is_sent_as_read_and_a_change_is_only_noted(
    session: ChatSession, server: ScriptedModelServer, workdir: Path
) -> None:
    notes = workdir / "notes.md"
    notes.write_text("The cluster is pg16-a.\n")
    attached = session.files.attach(notes)
    assert (attached.attachment.name, attached.refreshed) == ("notes.md", False)
    plan = session.plan("Which cluster?")
    (item,) = plan.layer(Layer.FILES).items
    assert (item.ref, item.label.split(",")[0]) == (attached.attachment.ref, "notes.md: whole file")
    server.script("pg16-a.")
    await collect(send_message(session, "Which cluster?"))
    assert "The cluster is pg16-a." in json.dumps(server.requests[-1]["messages"])

    notes.write_text("The cluster is pg17-b now.\n")
    assert session.plan(None).layer(Layer.FILES).notes == (
        "notes.md changed on disk since it was attached; the attached copy is sent "
        "(attach it again with --refresh to read it anew)",
    )
    with pytest.raises(AttachRefused, match="changed on disk since; attach it with --refresh"):
        session.files.attach(notes)
    assert "pg16-a" in next(
        m.content for m in session.plan(None).messages if m.layer is Layer.FILES
    )
    refreshed = session.files.attach(notes, refresh=True)
    assert refreshed.refreshed and refreshed.attachment.id == attached.attachment.id
    files_message = next(m.content for m in session.plan(None).messages if m.layer is Layer.FILES)
    assert "pg17-b" in files_message and session.plan(None).layer(Layer.FILES).notes == ()
    # Attached again unchanged: left as it is.
    assert session.files.attach("notes.md").unchanged

    notes.unlink()
    assert session.files.statuses(session.plan(None))[0].disk is DiskState.GONE
    session.files.detach("notes.md")
    assert session.plan(None).layer(Layer.FILES).items == ()


def files_session(
    store: Store, server: ScriptedModelServer, files: FilesSettings, window: int
) -> ChatSession:
    """A planning session on a new conversation, with these `[files]` settings."""
    settings = dataclasses.replace(make_settings(server), files=files)
    conversation = store.conversations.create_conversation("files").id
    return ChatSession(
        store, settings, settings.profile(), conversation, window=WindowInfo(window, "config")
    )


def test_a_file_too_big_for_its_share_sends_its_relevant_parts(
    store: Store, server: ScriptedModelServer, workdir: Path
) -> None:
    session = files_session(store, server, FilesSettings(part_tokens=60), 4_000)
    lines = [f"Section {n}: routine notes about step {n} of the plan.\n" for n in range(1, 200)]
    lines[120] = "Section 121: the zanzibar credentials live in the vault.\n"
    (workdir / "big.txt").write_text("".join(lines))
    session.files.attach("big.txt")
    plan = session.plan("Where are the zanzibar credentials?")
    layer = plan.layer(Layer.FILES)
    assert layer.tokens <= layer.budget
    first = layer.items[0]
    assert "matched zanzibar, credential;" in first.label
    assert "the zanzibar credentials live in the vault" in next(
        m.content for m in plan.messages if m.layer is Layer.FILES
    )
    (status,) = session.files.statuses(plan)
    assert status.how.endswith(f"of {len(status.attachment.parts)} parts")
    assert 0 < status.share < 0.25


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("make", "refusal"),
    [
        (
            lambda d: (d / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0") and d / "img.png",
            "it is a binary file",
        ),
        (
            lambda d: (d / "latin.txt").write_bytes(b"caf\xe9\n") and d / "latin.txt",
            "it is not UTF-8 text (byte 0xe9 at offset 3)",
        ),
        (
            lambda d: (d / "huge.log").write_bytes(b"x" * 5_001) and d / "huge.log",
            "it is 5.0 kB, over the limit of 5.0 kB ([files] max_bytes)",
        ),
        (lambda d: d / "missing.txt", "there is no such file"),
        (lambda d: d, "it is a directory"),
        (lambda d: fifo(d / "pipe"), "it is not a regular file (a device or pipe)"),
    ],
    ids=["binary", "not-utf8", "over-limit", "missing", "directory", "fifo"],
)
def test_what_cannot_be_attached_is_refused_with_one_line(
    store: Store, server: ScriptedModelServer, workdir: Path, make: object, refusal: str
) -> None:
    session = files_session(store, server, FilesSettings(max_bytes=5_000), 8_000)
    path = make(workdir)  # type: ignore[operator]
    with pytest.raises(AttachRefused) as caught:
        session.files.attach(path)
    assert str(caught.value).endswith(refusal)
    assert "\n" not in str(caught.value)
    assert store.attachments.attachments(session.stored_id) == []


def test_a_path_with_control_characters_is_named_safely(
    session: ChatSession, workdir: Path
) -> None:
    hostile = workdir / "evil\x1b[2Jname\n.txt"
    hostile.write_text("harmless\n")
    attached = session.files.attach(hostile).attachment
    assert attached.name == "evil?[2Jname?.txt"
    assert attached.path == str(hostile)
    message = next(m.content for m in session.plan(None).messages if m.layer is Layer.FILES)
    assert "--- BEGIN evil?[2Jname?.txt (whole file, 1 line) ---" in message
    assert "\x1b" not in message


def test_names_and_completion(workdir: Path) -> None:
    (workdir / "src").mkdir()
    (workdir / "src" / "app.py").write_text("x\n")
    (workdir / "setup.cfg").write_text("")
    assert complete_path("s") == ["setup.cfg", "src/"]
    assert complete_path("src/a") == ["src/app.py"]
    assert shown_name(str(workdir / "src" / "app.py")) == "src/app.py"
    assert shown_name("/home/me/notes.md", cwd="/srv", home="/home/me") == "~/notes.md"


# --- what it costs ------------------------------------------------------------------------


def test_a_server_on_this_machine_or_the_local_network_is_free(server: ScriptedModelServer) -> None:
    profile = make_settings(server).profile()
    assert billing_for(profile) is Billing.FREE
    for url, billing in (
        ("https://api.openai.com/v1", Billing.PRICED),
        ("http://192.168.1.20:11434/v1", Billing.FREE),
        ("http://[::1]:8080/v1", Billing.FREE),
        ("http://studio.local:1234/v1", Billing.FREE),
        ("https://openrouter.ai/api/v1", Billing.PRICED),
    ):
        assert billing_for(dataclasses.replace(profile, base_url=url)) is billing, url
    gateway = dataclasses.replace(profile, pricing=Pricing.PRICED)
    assert billing_for(gateway) is Billing.PRICED


async def test_a_local_reply_costs_nothing_and_says_so(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    assert cost_status_text(session) == "cost: nothing yet"
    server.script("Hi.")
    events = await collect(send_message(session, "Hello"))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reply.billing == "free"
    assert cost_status_text(session) == "cost: free (local server)"


async def test_a_priced_reply_costs_its_usage_times_the_price(store: Store) -> None:
    with ScriptedModelServer(
        models=["gpt-4o"], cached_tokens=8_000, prompt_tokens=lambda messages: 12_000
    ) as paid:
        settings = make_settings(paid)
        profile = dataclasses.replace(settings.profile(), pricing=Pricing.PRICED, api_key_env=None)
        priced = Settings(
            profiles={"test": profile}, default_profile="test", context=settings.context
        )
        async with OpenAIBackend(paid.base_url, None) as client:
            session = ChatSession(
                store,
                priced,
                profile,
                store.conversations.create_conversation("paid").id,
                backend=client,
                window=WindowInfo(8_000, "config"),
            )
            paid.script("Four words of answer.", "Two more.")
            await collect(send_message(session, "Hello"))
            await collect(send_message(session, "Again"))
    # (4,000 × $2.50 + 8,000 × $1.25 + 5 × $10.00) per million, and 3 tokens the second time.
    summary = cost_summary(store, priced, session.conversation_id, day_zone())
    assert summary.reply is not None and summary.reply.amount == pytest.approx(0.02003)
    assert summary.conversation.amount == pytest.approx(0.04008)
    assert summary.today.priced == 2
    assert cost_status_text(session) == (
        "cost: reply $0.0200 · conversation $0.0401 · today $0.0401"
    )
    (today,) = day_costs(store, priced, day_zone(), days=1)
    assert today.to_dict()["amount"] == pytest.approx(0.04008)


def day_zone() -> tzinfo:
    return local_zone()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_a_file_without_read_permission_is_refused(session: ChatSession, workdir: Path) -> None:
    secret = workdir / "secret.txt"
    secret.write_text("no\n")
    secret.chmod(0)
    with pytest.raises(AttachRefused, match=r"^cannot attach secret\.txt: permission denied$"):
        session.files.attach(secret)
