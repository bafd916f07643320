"""Optional: the real app on a pseudo-terminal against llama.cpp's own `llama-server`.

A user's session, keys as a terminal sends them: a message answered, its counts exact by
the server's tokenizer (the budget panel says so, and what the template adds), a summary
asked for by hand, and a message longer than the server's window. Runs when
CTXCHAT_LLAMA_SERVER names the binary (see `tests/llama_server.py`); skipped otherwise.
Replies are kept to a few tokens: the model is small, and a base model.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from ctxchat.testing import harness

from ..llama_server import running_llama_server, skip_reason
from .pty_process import PtyProcess

pytestmark = pytest.mark.integration

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)

N_CTX = 2048
UNASKED_LIMIT = 48
# A real model on a busy machine: how long one step may take before the test gives up (a
# guard against a hang, not a timing assertion: each wait ends when its condition holds).
PATIENCE = 300.0
SYSTEM = "You are terse."
CTRL_S = b"\x13"
CTRL_Q = b"\x11"
F2 = b"\x1bOQ"
ESCAPE = b"\x1b"
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
# Terminal control sequences, left out when looking for what the screen says.
# The inspector's summary of the next request: its messages and tokens.
NEXT_REQUEST = re.compile(r"\d+ messages? · ([\d,]+) tokens")
_CONTROL = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    # `-n`: what a request that names no limit may write (a summary's does not); a base
    # model would otherwise write until the window is full.
    with running_llama_server(N_CTX, options=("-n", str(UNASKED_LIMIT))) as root:
        yield root


@pytest.fixture
def home(tmp_path: Path, llama_server: str) -> Path:
    """A config for the server that sets no window (the server's own is used), short
    replies, no automatic summary, and the last two messages always kept."""
    model = httpx2.get(f"{llama_server}/v1/models", timeout=10).json()["data"][0]["id"]
    (tmp_path / "config.toml").write_text(
        'default_profile = "llama"\n'
        "[profiles.llama]\n"
        f'base_url = "{llama_server}/v1"\n'
        f'model = "{model}"\n'
        "output_reserve = 12\n"
        "[context]\n"
        f'system_prompt = "{SYSTEM}"\n'
        "min_recent = 2\n"
        "[summary]\n"
        "auto = false\n"
    )
    return tmp_path


def shown(process: PtyProcess) -> str:
    """What the app drew so far, without the control sequences between the pieces."""
    return _CONTROL.sub(b"", process.output).decode("utf-8", "replace")


def messages(home: Path) -> list[tuple[str, str, str]]:
    """(role, content, status) of every message the app stored, in order."""
    try:
        with sqlite3.connect(home / "data" / "ctxchat.db", timeout=5) as conn:
            rows = conn.execute("SELECT role, content, status FROM messages ORDER BY id")
            return [(str(r[0]), str(r[1]), str(r[2])) for r in rows.fetchall()]
    except sqlite3.OperationalError:
        return []


def answered(home: Path, count: int) -> bool:
    """Whether `count` messages are stored, the last one finished."""
    stored = messages(home)
    return len(stored) == count and stored[-1][2] != "streaming"


def rendered_tokens(root: str, sent: list[dict[str, str]]) -> int:
    """The server's own count of the prompt it renders for `sent`, asked of it directly."""
    with httpx2.Client(timeout=60) as client:
        prompt = client.post(f"{root}/apply-template", json={"messages": sent}).json()["prompt"]
        tokens = client.post(
            f"{root}/tokenize", json={"content": prompt, "add_special": True}
        ).json()["tokens"]
    return len(tokens)


def test_a_session_with_llama_server(home: Path, llama_server: str) -> None:
    env = dict(os.environ, **harness.test_env(home, home / "config.toml"))
    with PtyProcess([], env) as app:
        app.read_until(lambda out: b"window 2,048 (from the server)" in _CONTROL.sub(b"", out))

        app.write(b"Name a colour.\r")
        app.read_until(lambda _: answered(home, 2), PATIENCE)
        # Once the reply is counted and the next request rendered, the panel is exact: an
        # exact figure for the plan before the reply was counted may show first.
        sent = [{"role": "system", "content": SYSTEM}]
        sent += [{"role": role, "content": text} for role, text, _ in messages(home)]
        expected = rendered_tokens(llama_server, sent)
        # The line may wrap after the figure at this width.
        app.read_until(
            lambda _: f"exact counts (server tokenizer, {expected:,}" in shown(app), PATIENCE
        )

        app.write(b"And another one.\r")
        app.read_until(lambda _: answered(home, 4), PATIENCE)

        # Summarize by hand: the preview, Enter on its button, then one line either way (a
        # small model may be cut at the summary's limit: the old summary then stays).
        mark = len(app.output)
        app.write(CTRL_S)
        app.read_until(lambda out: b"Summarize now" in out[mark:])
        since = len(shown(app))
        app.write(b"\r")
        # The summary is reviewed before it goes into force: ctrl+s keeps it as written.
        app.read_until(
            lambda _: "Review the summary" in shown(app)[since:] or "stays" in shown(app)[since:],
            PATIENCE,
        )
        if "Review the summary" in shown(app)[since:]:
            kept_at = len(shown(app))
            app.write(CTRL_S)
            app.read_until(lambda _: "is in force" in shown(app)[kept_at:], PATIENCE)
        assert "Traceback" not in shown(app)

        # Longer than the whole window: the panel says so while it is in the box, Enter
        # says it in one line, and the text stays in the box: the next request (F2) holds it.
        long = " ".join(f"word{n}" for n in range(3_000))
        stored = len(messages(home))
        app.write(PASTE_START + long.encode() + PASTE_END)
        app.read_until(lambda _: "over budget by" in shown(app))
        sent_at = len(shown(app))
        app.write(b"\r")
        app.read_until(lambda _: "tokens; shorten it" in shown(app)[sent_at:])
        assert len(messages(home)) == stored  # nothing sent, nothing half-stored
        told_at = len(shown(app))
        app.write(F2)
        app.read_until(lambda _: NEXT_REQUEST.search(shown(app)[told_at:]) is not None)
        found = NEXT_REQUEST.search(shown(app)[told_at:])
        assert found is not None and int(found.group(1).replace(",", "")) > N_CTX
        app.write(ESCAPE + CTRL_Q)
        assert app.finish() == 0
    assert "Traceback" not in shown(app)
