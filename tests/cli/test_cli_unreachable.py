"""Commands against a configured server where nothing listens: one line, the documented code."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from ctxchat.cli.exits import EXIT_PROVIDER
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

from ..waiting import until_true
from .conftest import KEY, Run
from .test_cli_pty import CTRL_Q, Terminal


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def dead_url(home: Path, server: ScriptedModelServer) -> str:
    """The config's server moved to a port where nothing listens; that URL."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    config = Path(os.environ["CTXCHAT_CONFIG"])
    config.write_text(config.read_text().replace(server.base_url, url))
    return url


def notice(url: str) -> str:
    config = os.environ["CTXCHAT_CONFIG"]
    return (
        f"ctxchat: Cannot reach the model server at {url}: start it, or change base_url in "
        f"{config} (or pass --base-url).\n"
    )


def test_send_says_in_one_line_that_nothing_answers_and_stores_nothing(
    run: Run, home: Path, dead_url: str
) -> None:
    code, out, err = run("send", "Hello?")
    assert (code, out, err) == (EXIT_PROVIDER, "", notice(dead_url))
    with Store.open(home / "data" / "ctxchat.db") as store:
        assert store.conversations.list_conversations() == []


def test_summarize_says_it_too(run: Run, home: Path, dead_url: str) -> None:
    with Store.open(home / "data" / "ctxchat.db") as store:
        store.conversations.create_conversation("kept")
    code, _, err = run("summarize")
    assert (code, err) == (EXIT_PROVIDER, notice(dead_url))


def test_context_plans_without_the_server_and_says_why_there_was_no_answer(
    run: Run, dead_url: str
) -> None:
    # No window in the config: nothing may be said about one the server "does not report".
    config = Path(os.environ["CTXCHAT_CONFIG"])
    config.write_text(config.read_text().replace("context_window = 8000", "context_window = 0"))
    code, out, err = run("context")
    assert code == 0
    assert "layer" in out
    assert err == "ctxchat: note: " + notice(dead_url).removeprefix("ctxchat: ")
    assert "does not report its context size" not in out


def test_the_app_on_a_terminal_names_the_dead_server_and_sends_once_it_is_up(
    home: Path, dead_url: str
) -> None:
    port = int(dead_url.rsplit(":", 1)[1].split("/")[0])
    terminal = Terminal(dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor"))
    try:
        until_true(lambda: b"Cannot reach the model server" in terminal.output, what="the notice")
        mark = terminal.mark()
        terminal.write(b"still here?")
        until_true(lambda: terminal.drew_since(mark, b"still here?"), what="the typed text")
        with ScriptedModelServer(models=["gpt-4o"], requires_key=KEY, port=port) as server:
            server.script("Up and answering.")
            terminal.write(b"\r")
            database = home / "data" / "ctxchat.db"
            until_true(lambda: replies(database) == ["Up and answering."], what="the reply")
            terminal.write(CTRL_Q)
            until_true(lambda: terminal.process.poll() is not None, what="the app quit")
        assert terminal.process.returncode == 0
        assert b"Traceback" not in terminal.output
        assert b"does not report its context size" not in terminal.output
    finally:
        terminal.close()


def replies(database: Path) -> list[str]:
    with Store.open(database) as store:
        latest = store.conversations.latest_conversation()
        if latest is None:
            return []
        return [m.content for m in store.messages.messages(latest.id) if m.role == "assistant"]
