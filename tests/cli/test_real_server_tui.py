"""Optional: the real app in a pseudo-terminal against a real llama-cpp-python server.

Started with `--base-url` over a config whose profile points elsewhere, as a user trying a
local server does: replies stream from the real server, F4 keeps that server, and the
system prompt reaches the model although Gemma's chat template drops system messages.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.core.placement import CONTEXT_OPENING
from ctxchat.testing.proxy import RecordingProxy

from ..real_servers import N_CTX, PATIENCE, running_server
from ..waiting import until_true
from .test_cli_pty import Terminal

pytestmark = pytest.mark.integration

F4 = b"\x1bOS"
# A base model writes until it is stopped: a small reserve keeps each reply short.
CONFIG = """default_profile = "test"
[profiles.test]
base_url = "http://127.0.0.1:9/v1"
model = "gpt-4o"
[context]
system_prompt = "You are terse. The secret word is heliotrope."
output_reserve = 48
[summary]
auto = false
"""


@pytest.fixture(scope="module")
def llama_root() -> Iterator[str]:
    with running_server(N_CTX) as root:
        yield root


def replies(database: Path) -> list[tuple[str, str]]:
    """(role, status) of every stored message, in order."""
    try:
        with sqlite3.connect(database, timeout=5) as conn:
            rows = conn.execute("SELECT role, status FROM messages ORDER BY id").fetchall()
    except sqlite3.OperationalError:
        return []
    return [(str(role), str(status)) for role, status in rows]


def ended(database: Path, count: int) -> bool:
    """`count` messages stored, none still streaming."""
    found = replies(database)
    return len(found) == count and all(status != "streaming" for _, status in found)


def test_a_day_on_a_real_server_from_the_command_lines_base_url(
    tmp_path: Path, llama_root: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    database = tmp_path / "data" / "ctxchat.db"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    env.update(
        CTXCHAT_CONFIG=str(config),
        CTXCHAT_DATA_DIR=str(tmp_path / "data"),
        CTXCHAT_CACHE_DIR=str(tmp_path / "cache"),
        TERM="xterm-256color",
        COLORTERM="truecolor",
    )
    with RecordingProxy(llama_root) as proxy:
        terminal = Terminal(env, columns=160, rows=45, args=["--base-url", proxy.base_url])
        try:
            until_true(
                lambda: b"(measured" in terminal.output,
                what="the window measured at the server",
                timeout=PATIENCE,
            )
            terminal.write(b"Name a colour.\r")
            until_true(lambda: ended(database, 2), what="the first reply stored", timeout=PATIENCE)

            mark = terminal.mark()
            terminal.write(F4)
            until_true(lambda: terminal.drew_since(mark, b"Enter picks"), what="the picker")
            picked = terminal.mark()
            terminal.write(b"\r")  # the profile in use, first in the list
            until_true(
                lambda: (
                    terminal.drew_since(picked, b"Now talking to")
                    or terminal.drew_since(picked, b"opens it")
                ),
                what="the choice",
                timeout=PATIENCE,
            )
            if not terminal.drew_since(picked, b"Now talking to"):
                # The list came after the key, and the Enter reached the picker before it
                # was on screen: as typing ahead, it went back to the composer, and the
                # picker waits for F4.
                again = terminal.mark()
                terminal.write(F4)
                until_true(lambda: terminal.drew_since(again, b"Enter picks"), what="again")
                terminal.write(b"\r")
                until_true(
                    lambda: terminal.drew_since(again, b"Now talking to"),
                    what="the choice",
                    timeout=PATIENCE,
                )
            terminal.write(b"And another one?\r")
            until_true(lambda: ended(database, 4), what="the second reply stored", timeout=PATIENCE)
        finally:
            terminal.close()

    sent = [
        body
        for method, path, body in proxy.requests
        if method == "POST" and path.endswith("/chat/completions") and body.get("stream")
    ]
    shapes = [[(m["role"], m["content"][:30]) for m in body["messages"]] for body in sent]
    assert len(sent) == 2, shapes  # both went to the server named on the command line
    for body in sent:
        roles = [m["role"] for m in body["messages"]]
        assert "system" not in roles
        assert body["messages"][0]["content"].startswith(CONTEXT_OPENING)
        assert "The secret word is heliotrope." in body["messages"][0]["content"]
    assert [m["content"] for m in sent[1]["messages"] if m["role"] == "user"][-1] == (
        "And another one?"
    )
    assert [role for role, _ in replies(database)] == ["user", "assistant", "user", "assistant"]
