"""The real `ctxchat` app on a pseudo-terminal: bursts of keys, typing into the
conversation and the inspector, and retrying from the composer, as a user's terminal sends
them."""

from __future__ import annotations

import fcntl
import os
import pty
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import tomllib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from ctxchat.core.tokens import count_message, counter_for_model
from ctxchat.store import Store
from ctxchat.testing.server import Fault, ScriptedModelServer

from ..waiting import until_true

SHIFT_TAB = b"\x1b[Z"
UP = b"\x1b[A"
CTRL_R = b"\x12"
CTRL_Q = b"\x11"
F2 = b"\x1bOQ"


class Terminal:
    """A `ctxchat` process on a pseudo-terminal of `columns`×`rows`; keeps what it drew."""

    def __init__(
        self,
        env: dict[str, str],
        columns: int = 80,
        rows: int = 24,
        args: Sequence[str] = (),
    ) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ctxchat.cli.main", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.output = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            self.output.extend(data)

    def mark(self) -> int:
        """Where the output is now: `drew_since(mark, …)` looks only at what came after."""
        return len(self.output)

    def drew_since(self, mark: int, text: bytes) -> bool:
        return text in self.output[mark:]

    def write(self, data: bytes) -> None:
        """Write `data` in one go: the app gets the whole burst at once (all of it: a write
        to a terminal may take less than it was given)."""
        view = memoryview(data)
        while view:
            view = view[os.write(self.master, view) :]

    def close(self) -> None:
        if self.process.poll() is None:
            self.write(CTRL_Q)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        os.close(self.master)


def wait_for(condition: Callable[[], object], what: str) -> None:
    until_true(condition, what=what)


@pytest.fixture
def long_conversation(home: Path) -> Path:
    """A 3,000-message conversation in the app's store; the path of the database."""
    database = home / "data" / "ctxchat.db"
    database.parent.mkdir(parents=True, exist_ok=True)
    counter = counter_for_model("gpt-4o")
    store = Store.open(database)
    try:
        conversation = store.conversations.create_conversation(
            "long", model="gpt-4o", profile="test"
        ).id
        for number in range(1, 1_501):
            for role, text in (
                ("user", f"Question {number} about the database?"),
                ("assistant", f"Answer {number} about the database."),
            ):
                tokens = count_message(counter, role, text).tokens
                store.messages.add_message(
                    conversation, role, text, tokens=tokens, exact=True, encoding=counter.name
                )
    finally:
        store.close()
    config = Path(os.environ["CTXCHAT_CONFIG"])
    config.write_text(config.read_text().replace("min_messages = 2\n", "auto = false\n"))
    return database


def answered(database: Path, count: int) -> bool:
    """Whether `count` messages follow the seeded ones, all complete."""
    found = rows(database, 3_000)
    return len(found) == count and all(status == "complete" for *_, status in found)


def rows(database: Path, after: int) -> list[tuple[int, str, str, str]]:
    """(id, role, content, status) of the messages after the 3,000 seeded ones."""
    try:
        with sqlite3.connect(database, timeout=5) as conn:
            found = conn.execute(
                "SELECT id, role, content, status FROM messages WHERE id > ? ORDER BY id",
                (after,),
            ).fetchall()
    except sqlite3.OperationalError:
        return []
    return [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in found]


@pytest.fixture
def terminal(home: Path, long_conversation: Path) -> Iterator[Terminal]:
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
    running = Terminal(env)
    try:
        # The newest seeded turn on screen: the conversation is drawn, the composer ready.
        wait_for(lambda: b"Answer 1500" in running.output, "the conversation drawn")
        yield running
    finally:
        running.close()


def test_keys_in_bursts_end_up_sent_or_in_the_box_in_order(
    terminal: Terminal, long_conversation: Path, server: ScriptedModelServer
) -> None:
    server.script("Noted.", "Noted again.")
    mark = terminal.mark()
    terminal.write(b"the first message, typed fast\rand the start of the next")
    # The status line counts the reply once it is whole and the box can send again.
    wait_for(lambda: terminal.drew_since(mark, b"server counted"), "the first message answered")
    terminal.write(b"\r")  # sends whatever the box holds
    wait_for(lambda: answered(long_conversation, 4), "the second message answered")
    sent = [(role, text) for _, role, text, _ in rows(long_conversation, 3_000)]
    assert sent == [
        ("user", "the first message, typed fast"),
        ("assistant", "Noted."),
        ("user", "and the start of the next"),
        ("assistant", "Noted again."),
    ]


def test_typing_after_moving_into_the_conversation_fires_no_command(
    terminal: Terminal, long_conversation: Path, server: ScriptedModelServer
) -> None:
    server.script("The first reply.", "You're welcome.")
    mark = terminal.mark()
    terminal.write(b"hello\r")
    wait_for(lambda: terminal.drew_since(mark, b"server counted"), "the first reply")
    # Into the conversation, select the reply, then type a sentence full of action letters.
    terminal.write(SHIFT_TAB + UP)
    terminal.write(b"great, thanks; pin, edit, copy\r")
    wait_for(lambda: answered(long_conversation, 4), "the second reply")
    found = rows(long_conversation, 3_000)
    assert [(role, text) for _, role, text, _ in found] == [
        ("user", "hello"),
        ("assistant", "The first reply."),  # not regenerated
        ("user", "great, thanks; pin, edit, copy"),
        ("assistant", "You're welcome."),
    ]


def test_typing_into_the_inspector_closes_it_and_sends_every_key(
    terminal: Terminal, long_conversation: Path, server: ScriptedModelServer
) -> None:
    server.script("Noted.")
    terminal.write(b"Before F2, ")
    mark = terminal.mark()
    terminal.write(F2)
    wait_for(lambda: terminal.drew_since(mark, b"Next request"), "the inspector")
    # j, m and d once switched its tabs; the Enter sends the message.
    terminal.write(b"and after it: just do my diff, jam\r")
    wait_for(lambda: answered(long_conversation, 2), "the reply")
    assert [(role, text) for _, role, text, _ in rows(long_conversation, 3_000)] == [
        ("user", "Before F2, and after it: just do my diff, jam"),
        ("assistant", "Noted."),
    ]


def test_ctrl_r_in_the_composer_retries_a_failed_reply(
    terminal: Terminal, long_conversation: Path, server: ScriptedModelServer
) -> None:
    server.fail_next(Fault.SERVER_ERROR)
    server.script("Second time lucky.")
    terminal.write(b"please answer\r")
    wait_for(
        lambda: [s for *_, s in rows(long_conversation, 3_000)] == ["complete", "failed"],
        "the reply failed",
    )
    terminal.write(CTRL_R)
    wait_for(
        lambda: (
            [(t, s) for _, _, t, s in rows(long_conversation, 3_000)][-1]
            == ("Second time lucky.", "complete")
        ),
        "the retried reply",
    )


UP_ARROW = b"\x1b[A"
TAB = b"\t"


def test_keys_typed_right_after_tab_in_the_setup_land_in_the_next_field(
    home: Path, server: ScriptedModelServer
) -> None:
    config = home / "first-run.toml"
    env = dict(os.environ, TERM="xterm-256color", CTXCHAT_CONFIG=str(config))
    running = Terminal(env, columns=100, rows=40)
    try:
        wait_for(lambda: b"Welcome to ctxchat" in running.output, "the first-run setup")
        mark = running.mark()
        # "Another server" is the last choice: up from the first goes round to it.
        running.write(UP_ARROW + b" ")
        wait_for(lambda: running.drew_since(mark, b"Any OpenAI-compatible"), "another server")
        # One burst, as a password manager or a paste of keystrokes sends it.
        running.write(
            TAB + server.base_url.encode() + TAB + b"gpt-4o" + TAB + TAB + b"CTXCHAT_TEST_KEY\r"
        )
        wait_for(config.exists, "the config written")
    finally:
        running.close()
    (profile,) = tomllib.loads(config.read_text(encoding="utf-8"))["profiles"].values()
    assert (profile["base_url"], profile["model"], profile["api_key_env"]) == (
        server.base_url,
        "gpt-4o",
        "CTXCHAT_TEST_KEY",
    )


BURSTS = (
    "burst number 1: the quick brown fox jumps over the lazy dog",
    "burst number 2: pack my box with five dozen liquor jugs, dog",
    "great, thanks, I expect a reply",
)


def test_bursts_typed_while_a_slow_reply_streams_under_load_go_whole_and_in_order(
    terminal: Terminal, long_conversation: Path, server: ScriptedModelServer
) -> None:
    release = threading.Event()
    server.fail_next(Fault.STALL, after=2, until=release)
    server.script("A slow reply, held after its first words.")
    terminal.write(b"first\r")
    wait_for(lambda: len(server.requests) == 1, "the slow reply asked for")
    # Both cores kept busy while the bursts arrive: the app reads them late, several at once.
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        mark = terminal.mark()
        for burst in BURSTS:
            terminal.write(burst.encode() + b"\r")
        wait_for(lambda: terminal.drew_since(mark, "queued · 3".encode()), "three rows queued")
        release.set()
        wait_for(lambda: answered(long_conversation, 8), "every queued message answered")
    finally:
        release.set()
        for process in busy:
            process.kill()
            process.wait()
    assert [request["messages"][-1]["content"] for request in server.requests] == [
        "first",
        *BURSTS,
    ]
    assert [text for _, role, text, _ in rows(long_conversation, 3_000) if role == "user"] == [
        "first",
        *BURSTS,
    ]


F5 = b"\x1b[15~"
CTRL_X = b"\x18"
ALT_X = b"\x1bx"  # as a terminal sends alt+x: escape, then the letter


def test_leaving_a_turn_out_and_a_question_with_its_answer_from_a_real_terminal(
    terminal: Terminal, long_conversation: Path, server: ScriptedModelServer
) -> None:
    server.script("The first reply.", "The second reply.", "The third reply.")

    def request_after(text: bytes, count: int) -> str:
        mark = terminal.mark()
        terminal.write(text + b"\r")
        wait_for(lambda: answered(long_conversation, count), f"the reply to {text!r}")
        wait_for(lambda: terminal.drew_since(mark, b"server counted"), "the reply counted")
        return "\n".join(str(message["content"]) for message in server.requests[-1]["messages"])

    request_after(b"hello", 2)
    mark = terminal.mark()
    terminal.write(F5 + UP + CTRL_X)  # the newest reply selected, and left out
    wait_for(lambda: terminal.drew_since(mark, b"Excluded message"), "the reply left out")
    sent = request_after(b"second", 4)
    assert "hello" in sent and "The first reply." not in sent

    mark = terminal.mark()
    terminal.write(F5 + UP + ALT_X)  # the second reply selected: it and its question go
    wait_for(lambda: terminal.drew_since(mark, b"Excluded messages"), "the pair left out")
    sent = request_after(b"third", 6)
    assert "second" not in sent.split("\n") and "The second reply." not in sent
    assert "hello" in sent and "third" in sent
