"""Hostile text on every output path: cleaned on a terminal, raw where the user asked for raw.

The terminal paths run the real process on a pseudo-terminal and look at the bytes it wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.safe_text import clean
from ctxchat.store import Store
from ctxchat.testing.hostile_text import (
    HOSTILE_FILE_NAME,
    HOSTILE_MODEL_IDS,
    HOSTILE_SAMPLES,
    HOSTILE_TEXT,
    leaked,
)
from ctxchat.testing.server import Fault, ScriptedModelServer

from .pty_process import PtyProcess, Run, run_on_pty

# Labels that survive cleaning on every path (the title folds whitespace, so not "<cr>").
LABELS = [f"<{name}>".encode() for name in ("osc52", "osc0", "clear", "c1csi", "rlo", "nul")]


@pytest.fixture
def seeded(home: Path) -> int:
    """One conversation whose title, messages and a memory entry all hold the whole corpus."""
    store = Store.open(home / "data" / "ctxchat.db")
    try:
        conversation = store.conversations.create_conversation(HOSTILE_TEXT).id
        for role in ("user", "assistant"):
            store.messages.add_message(
                conversation, role, HOSTILE_TEXT, tokens=9, exact=False, encoding="o200k_base"
            )
        store.memory.add_memory("fact", HOSTILE_TEXT, conversation_id=conversation)
    finally:
        store.close()
    return conversation


def shown(output: bytes) -> bytes:
    # The terminal's output processing writes "\r\n" for "\n".
    return output.replace(b"\r\n", b"\n")


@pytest.mark.parametrize(
    "args",
    [
        ["conversations"],
        ["export", "1", "--format", "md"],
        ["memory", "list"],
        ["context", "--message", HOSTILE_TEXT.replace("\x00", "")],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_text_on_a_terminal_is_cleaned(seeded: int, args: list[str]) -> None:
    code, output = run_on_pty(args)
    assert code == 0, output[-1500:]
    assert leaked(output) == []
    assert b"<osc52>" in output, output[-1500:]


def without_timing(data: object) -> object:
    """The JSON but the seconds recall by meaning took, which are each run's own."""
    if isinstance(data, dict):
        return {key: value for key, value in data.items() if key != "recall_by_meaning"}
    return data


@pytest.mark.parametrize(
    "args",
    [
        ["conversations", "--json"],
        ["export", "1", "--format", "json"],
        ["memory", "list", "--json"],
        ["context", "--json"],
    ],
    ids=" ".join,
)
def test_json_on_a_terminal_is_cleaned_and_still_exact(
    seeded: int, run: Run, args: list[str]
) -> None:
    code, output = run_on_pty(args)
    assert code == 0, output[-1500:]
    assert leaked(output) == []
    for raw in ("\x9b", "\u202e", "\u2066", "\x85"):
        assert raw.encode() not in output
    # What a terminal got decodes to exactly what a pipe gets.
    piped_code, piped, _ = run(*args)
    assert piped_code == 0
    assert without_timing(json.loads(shown(output).decode())) == without_timing(json.loads(piped))
    assert "\x9b2J" in piped and "\u202e" in piped


def test_a_streamed_reply_on_a_terminal_is_cleaned_and_stored_raw(
    home: Path, server: ScriptedModelServer
) -> None:
    server.chunk_size = 3  # sequences split across chunks
    server.script(HOSTILE_TEXT)
    code, output = run_on_pty(["send", "hello"])
    assert code == 0, output[-1500:]
    assert leaked(output) == []
    assert all(label in output for label in LABELS), output[-1500:]
    store = Store.open(home / "data" / "ctxchat.db")
    try:
        reply = store.messages.messages(1)[-1]
    finally:
        store.close()
    assert reply.content == HOSTILE_TEXT


def test_an_error_line_from_the_server_is_cleaned(home: Path, server: ScriptedModelServer) -> None:
    server.fail_next(Fault.AUTH, message=f"boom {HOSTILE_TEXT}")
    code, output = run_on_pty(["send", "hello"])
    assert code == 3, output[-1500:]
    assert leaked(output) == []


def test_raw_where_the_user_asked_for_raw(seeded: int, run: Run, home: Path) -> None:
    # Into a pipe, Markdown and JSON are exact.
    code, markdown, _ = run("export", "1", "--format", "md")
    assert code == 0
    assert HOSTILE_TEXT in markdown
    code, piped, _ = run("export", "1", "--format", "json")
    assert json.loads(piped)["messages"][0]["content"] == HOSTILE_TEXT
    # Into a file, even when the command runs on a terminal.
    target = home / "out.md"
    code, output = run_on_pty(["export", "1", "--format", "md", "-o", str(target)])
    assert code == 0, output[-1500:]
    assert HOSTILE_TEXT in target.read_bytes().decode()


def test_send_into_a_pipe_is_raw(home: Path, server: ScriptedModelServer, run: Run) -> None:
    server.script(HOSTILE_TEXT)
    code, out, _ = run("send", "hello")
    assert code == 0
    assert out == HOSTILE_TEXT + "\n"


def test_the_tui_cleans_titles_model_ids_and_messages(seeded: int, home: Path) -> None:
    config = home / "config.toml"
    model = json.dumps(HOSTILE_SAMPLES["osc0"] + "model" + HOSTILE_SAMPLES["osc52"])
    config.write_text(config.read_text().replace('model = "gpt-4o"', f"model = {model}"))
    with PtyProcess([], columns=400, rows=60) as tui:
        # The header shows the conversation title; the reply shows the corpus.
        tui.read_until(lambda out: b"model" in out and out.count(b"<decid>") >= 2)
        tui.write(b"\x0c")  # ctrl+l: the switcher lists the title again
        tui.read_until(lambda out: b"Titles and messages" in out)
        # ctrl+q quits from the switcher too. (Esc first, then ctrl+q, can reach the app
        # as one alt+ctrl+q when the machine is slow: a terminal cannot tell them apart.)
        tui.write(b"\x11")
        tui.finish()
        output = tui.output
    assert leaked(output) == []
    assert HOSTILE_SAMPLES["osc0"].encode() + b"model" not in output
    assert b"\x1b]52;c;SE9TVElMRQ" not in output


@pytest.mark.parametrize(("name", "raw"), HOSTILE_SAMPLES.items())
def test_every_sample_is_neutralised(name: str, raw: str) -> None:
    cleaned = clean(raw)
    assert "\x1b" not in cleaned
    assert not any(0x80 <= ord(c) <= 0x9F or c in "\x00\x07\x08\r\x7f" for c in cleaned)
    assert not any(c in cleaned for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@pytest.fixture
def hostile_server(home: Path) -> Iterator[ScriptedModelServer]:
    """The config's server is one whose `/v1/models` lists only hostile ids (not gpt-4o),
    asked for its window (none is configured)."""
    with ScriptedModelServer(models=HOSTILE_MODEL_IDS, reject_unknown_models=True) as running:
        config = home / "config.toml"
        lines = config.read_text().splitlines()
        lines = [
            f'base_url = "{running.base_url}"' if line.startswith("base_url") else line
            for line in lines
            if not line.startswith(("context_window", "output_reserve"))
        ]
        config.write_text("\n".join(lines) + "\n")
        yield running


@pytest.mark.parametrize(
    "args",
    [
        ["context"],
        ["context", "--json"],
        ["--model", HOSTILE_MODEL_IDS[2], "context"],
        ["send", "hello"],
        ["send", "--json", "hello"],
        ["--model", HOSTILE_MODEL_IDS[2], "send", "--json", "hello"],
    ],
    ids=lambda args: " ".join(clean(arg)[:12] for arg in args),
)
def test_model_ids_a_server_lists_are_cleaned_on_a_terminal(
    hostile_server: ScriptedModelServer, args: list[str]
) -> None:
    hostile_server.script("Hello.")
    code, output = run_on_pty(args)
    assert code in (0, 3), output[-1500:]
    assert leaked(output) == []
    for raw in ("\x9b", "\u202e", "\u2066", "\x85"):
        assert raw.encode() not in output
    assert b"<osc0>" in output, output[-1500:]  # the ids were shown, cleaned


def test_a_path_named_with_control_sequences_is_cleaned_where_it_is_told(
    seeded: int, home: Path
) -> None:
    written = home / HOSTILE_FILE_NAME
    code, output = run_on_pty(["export", "1", "-o", str(written)])
    assert code == 0, output[-1500:]
    assert written.exists()
    config = home / "new" / HOSTILE_FILE_NAME
    code, more = run_on_pty(["--config", str(config), "config", "init"])
    assert code == 0, more[-1500:]
    assert config.exists()
    for told in (output, more):
        assert leaked(told) == []
        assert b"Wrote " in told and b"<osc0>" in told, told[-1500:]


def test_the_tui_cleans_the_model_ids_a_server_lists(
    hostile_server: ScriptedModelServer,
) -> None:
    with PtyProcess([], columns=300, rows=60) as tui:
        # The window layer's note quotes the list the server gave.
        tui.read_until(lambda out: b"it offers:" in out)
        # F4 offers the ids (as many as fit in its list).
        tui.press(b"\x1bOS", b"Switch profile or model", b"model <osc8>clickmodel")
        assert tui.quit() == 0
        output = tui.output
    assert leaked(output) == []
    for raw in ("\x9b", "\u202e", "\u2066", "\x85"):
        assert raw.encode() not in output
