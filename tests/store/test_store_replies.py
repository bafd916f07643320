"""Streamed replies: saved as they arrive, finished once, and recovered after a crash."""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.core.history import MessageStatus
from ctxchat.store import ReplyEnding, ReplyWriter, Store, StoredMessage, StoreError

from .endings import failed_with

Say = Callable[[int, str, str], StoredMessage]


def test_a_reply_goes_from_streaming_to_complete(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()  # 1000
    question = say(conversation.id, "user", "why?")  # 1001
    reply = store.replies.start_reply(
        conversation.id, model="gpt-4o", estimated_prompt_tokens=120, parent_id=question.id
    )  # 1002
    assert (reply.role, reply.content, reply.status, reply.tokens) == (
        "assistant",
        "",
        MessageStatus.STREAMING,
        0,
    )
    store.replies.save_partial(reply.id, "Because", "thinking…")  # 1003
    partial = store.messages.get_message(reply.id)
    assert (partial.content, partial.reasoning, partial.updated_at) == (
        "Because",
        "thinking…",
        1003.0,
    )
    done = store.replies.finish_reply(
        reply.id,
        ReplyEnding(
            content="Because it is.",
            reasoning="thinking… done",
            tokens=9,
            exact=True,
            encoding="o200k_base",
            finish_reason="stop",
            prompt_tokens=125,
            completion_tokens=5,
            cached_tokens=64,
        ),
    )  # 1004
    assert done.status is MessageStatus.COMPLETE
    assert (done.content, done.reasoning, done.tokens, done.finish_reason) == (
        "Because it is.",
        "thinking… done",
        9,
        "stop",
    )
    assert (done.prompt_tokens, done.completion_tokens, done.cached_tokens) == (125, 5, 64)
    assert (done.estimated_prompt_tokens, done.drift, done.parent_id) == (120, 5, question.id)
    assert (done.created_at, done.updated_at) == (1002.0, 1004.0)
    assert store.conversations.get_conversation(conversation.id).updated_at == 1004.0


def test_a_failed_reply_keeps_its_error(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    reply = store.replies.start_reply(conversation.id, model="m")
    failed = store.replies.finish_reply(
        reply.id,
        failed_with("The server refused the request: context_length_exceeded."),
    )
    assert failed.status is MessageStatus.FAILED
    assert failed.error == "The server refused the request: context_length_exceeded."


def test_a_finished_reply_cannot_change_again(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    reply = store.replies.start_reply(conversation.id, model="m")
    store.replies.finish_reply(
        reply.id,
        ReplyEnding(
            content="stopped", status=MessageStatus.INTERRUPTED, tokens=4, exact=True, encoding="e"
        ),
    )
    with pytest.raises(StoreError) as caught:
        store.replies.save_partial(reply.id, "more")
    assert str(caught.value) == f"Reply {reply.id} is already finished (interrupted)."
    with pytest.raises(StoreError):
        store.replies.finish_reply(
            reply.id, ReplyEnding(content="x", tokens=1, exact=True, encoding="e")
        )
    with pytest.raises(StoreError):
        store.replies.finish_reply(
            reply.id,
            ReplyEnding(
                content="x", status=MessageStatus.STREAMING, tokens=1, exact=True, encoding="e"
            ),
        )
    assert store.messages.get_message(reply.id).content == "stopped"


class ManualClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_writer_saves_at_most_every_interval(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    reply = store.replies.start_reply(conversation.id, model="m")
    clock = ManualClock()
    writer = ReplyWriter(store.replies, reply.id, interval=0.25, clock=clock)
    assert writer.append("Hel") is False  # t=0: too soon
    clock.now = 0.1
    assert writer.append("lo") is False
    assert store.messages.get_message(reply.id).content == ""
    clock.now = 0.26
    assert writer.append(",", reasoning="hmm") is True
    assert store.messages.get_message(reply.id).content == "Hello,"
    assert store.messages.get_message(reply.id).reasoning == "hmm"
    assert writer.saved_content == "Hello,"
    clock.now = 0.3
    assert writer.append(" world") is False
    assert (writer.content, writer.saved_content) == ("Hello, world", "Hello,")
    writer.flush()  # a caller's timer saves a paused stream
    assert store.messages.get_message(reply.id).content == "Hello, world"
    done = writer.close(
        ReplyEnding(
            content=writer.content,
            reasoning=writer.reasoning,
            tokens=6,
            exact=True,
            encoding="o200k_base",
            finish_reason="stop",
        )
    )
    assert (done.content, done.reasoning, done.status) == (
        "Hello, world",
        "hmm",
        MessageStatus.COMPLETE,
    )
    with pytest.raises(StoreError):
        writer.append("late")


def test_writer_start_creates_the_reply(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    writer = ReplyWriter.start(
        store.replies, conversation.id, model="m", estimated_prompt_tokens=40
    )
    reply = store.messages.get_message(writer.message_id)
    assert (reply.status, reply.estimated_prompt_tokens, writer.interval) == (
        MessageStatus.STREAMING,
        40,
        0.25,
    )


def set_owner(store: Store, message_id: int, owner: str | None, updated_at: float) -> None:
    with store.transaction() as conn:
        conn.execute(
            "UPDATE messages SET stream_owner = ?, updated_at = ? WHERE id = ?",
            (owner, updated_at, message_id),
        )


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_reopening_marks_replies_of_dead_processes_interrupted_and_leaves_live_ones(
    db_path: Path,
) -> None:
    host = socket.gethostname()
    now = time.time()
    with Store.open(db_path) as store:
        conversation = store.conversations.create_conversation()
        ids = [store.replies.start_reply(conversation.id, model="m").id for _ in range(5)]
        for message_id in ids:
            store.replies.save_partial(message_id, f"text of {message_id}")
        set_owner(store, ids[0], f"{host}/{dead_pid()}", now)  # crashed here
        set_owner(store, ids[1], f"{host}/{os.getppid()}", now)  # still running here
        set_owner(store, ids[2], "elsewhere/123", now)  # another host, saved just now
        set_owner(store, ids[3], "elsewhere/123", now - 3600)  # another host, long silent
        set_owner(store, ids[4], None, now)
    with Store.open(db_path) as store:
        assert store.interrupted_on_open == 3
        statuses = [store.messages.get_message(message_id).status for message_id in ids]
        assert statuses == [
            MessageStatus.INTERRUPTED,
            MessageStatus.STREAMING,
            MessageStatus.STREAMING,
            MessageStatus.INTERRUPTED,
            MessageStatus.INTERRUPTED,
        ]
        assert store.messages.get_message(ids[0]).content == f"text of {ids[0]}"
        assert store.messages.get_message(ids[0]).updated_at == now  # when its last text was saved
        # A writer taken for dead by mistake carries on: its next save revives the reply.
        store.replies.save_partial(ids[3], "still here")
        assert store.messages.get_message(ids[3]).status is MessageStatus.STREAMING
    with Store.open(db_path) as store:
        assert store.interrupted_on_open == 0


CHILD = """
import sys, time
from pathlib import Path
from ctxchat.store import ReplyWriter, Store

store = Store.open(Path(sys.argv[1]))
conversation = store.conversations.create_conversation("crash test")
store.messages.add_message(conversation.id, "user", "Tell me a long story.", tokens=9, exact=True,
                  encoding="o200k_base")
writer = ReplyWriter.start(store.replies, conversation.id, model="m", interval=0.05)
index = 0
while True:
    writer.append(f"chunk-{index:05d} ")
    index += 1
    if index == 60:
        print("SAVED", len(writer.saved_content), flush=True)
    if index == 300:
        print("STREAMED ON", flush=True)
    time.sleep(0.002)
"""


def test_kill_9_loses_at_most_the_last_moments_of_a_reply(db_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        marker = child.stdout.readline().split()
        assert marker[0] == "SAVED"
        saved_before_marker = int(marker[1])
        # It keeps streaming (and saving) for a while after the marker.
        assert child.stdout.readline() == "STREAMED ON\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    with Store.open(db_path) as store:
        assert store.interrupted_on_open == 1
        user, reply = store.messages.messages(1)
        assert (user.role, user.content, user.status) == (
            "user",
            "Tell me a long story.",
            MessageStatus.COMPLETE,
        )
        assert reply.status is MessageStatus.INTERRUPTED
        chunks = reply.content.split()
        # Whole chunks, in order, from the first: exactly what was streamed, cut at a save.
        assert chunks == [f"chunk-{index:05d}" for index in range(len(chunks))]
        assert reply.content == "".join(f"{chunk} " for chunk in chunks)
        assert saved_before_marker > 0
        assert len(reply.content) >= saved_before_marker
