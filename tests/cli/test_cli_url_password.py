"""A password in the server's URL is a secret: shown masked (`alice:***@`), never in clear."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.config.settings import ProviderProfile
from ctxchat.model.discovery import FoundServer, UrlAnswer, UrlOutcome
from ctxchat.model.errors import connection_error, status_error
from ctxchat.redaction import redact, shown_url
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.screens.setup_answers import answer_line, server_label
from ctxchat.tui.views import ServerView

from .pty_process import PtyProcess, Run, run_on_pty

PASSWORD = "PASSWORD-0123"
F4 = b"\x1bOS"


def with_password(base_url: str) -> str:
    return base_url.replace("http://", f"http://alice:{PASSWORD}@", 1)


def use_base_url(home: Path, base_url: str) -> None:
    config = home / "config.toml"
    lines = [
        f'base_url = "{base_url}"' if line.startswith("base_url") else line
        for line in config.read_text().splitlines()
    ]
    config.write_text("\n".join(lines) + "\n")


@pytest.fixture
def nothing_listening(home: Path) -> str:
    """The config's base URL holds a password, and nothing listens at it; its masked form."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    use_base_url(home, with_password(f"http://127.0.0.1:{port}/v1"))
    return f"http://alice:***@127.0.0.1:{port}/v1"


@pytest.fixture
def listening(home: Path) -> Iterator[ScriptedModelServer]:
    """The config's base URL holds a password, and a server answers there."""
    with ScriptedModelServer(models=["gpt-4o"]) as running:
        use_base_url(home, with_password(running.base_url))
        yield running


@pytest.mark.parametrize("args", [["send", "hi"], ["send", "--json", "hi"], ["summarize"]])
def test_nothing_listening_is_told_with_the_password_masked(
    run: Run, nothing_listening: str, home: Path, args: list[str]
) -> None:
    if args == ["summarize"]:  # it needs a conversation to summarize
        store = Store.open(home / "data" / "ctxchat.db")
        store.conversations.create_conversation("c")
        store.close()
    code, out, err = run(*args)
    assert code == 3
    assert err == (
        f"ctxchat: Cannot reach the model server at {nothing_listening}: start it, or change "
        f"base_url in {home / 'config.toml'} (or pass --base-url).\n"
    )
    assert PASSWORD not in out


def test_context_notes_the_server_with_the_password_masked(
    run: Run, nothing_listening: str
) -> None:
    for args in (["context"], ["context", "--json"]):
        code, out, err = run(*args)
        assert code == 0
        assert f"Cannot reach the model server at {nothing_listening}" in err
        assert PASSWORD not in out + err


def test_the_password_is_never_printed_stored_or_exported(
    run: Run, listening: ScriptedModelServer, home: Path
) -> None:
    listening.script("Hello back.")
    masked = with_password(listening.base_url).replace(PASSWORD, "***")
    said = [run("send", "Hello"), run("send", "--json", "Again")]
    said += [run(*args) for args in (["context", "--json"], ["context"], ["config", "show"])]
    said += [run("export", "1", "--format", fmt) for fmt in ("json", "md")]
    said += [run("variants", "2", "--json"), run("conversations", "--json")]
    assert [code for code, _, _ in said] == [0] * len(said)
    shown = "".join(out + err for _, out, err in said)
    assert PASSWORD not in shown
    assert f'"url": "{masked}/chat/completions"' in shown
    assert f'"base_url": "{masked}"' in shown  # config show
    # The server got the password (the user meant it to); nothing kept it.
    store = Store.open(home / "data" / "ctxchat.db")
    try:
        plan = store.plans.load_plan(2)
    finally:
        store.close()
    assert plan is not None and plan.request is not None
    assert plan.request["url"] == f"{masked}/chat/completions"
    for kept in (home / "data").iterdir():
        assert PASSWORD.encode() not in kept.read_bytes()


def test_a_plan_stored_with_the_password_is_exported_masked(
    run: Run, listening: ScriptedModelServer, home: Path
) -> None:
    listening.script("Hello back.")
    assert run("send", "Hello")[0] == 0
    store = Store.open(home / "data" / "ctxchat.db")
    try:
        plan = store.plans.load_plan(2)
        assert plan is not None and plan.request is not None
        # As a plan stored before the URL was masked holds it.
        url = with_password(listening.base_url) + "/chat/completions"
        store.plans.save_plan(2, dataclasses.replace(plan, request={**plan.request, "url": url}))
    finally:
        store.close()
    code, out, _ = run("export", "1", "--format", "json")
    assert code == 0
    assert PASSWORD not in out
    assert "alice:***@" in out


def test_the_tui_masks_the_password_on_the_status_line_and_in_the_model_picker(
    nothing_listening: str,
) -> None:
    # (The variant comparison's "POST <url>" title reads the stored plan's URL, masked as
    # the tests above show.)
    with PtyProcess([], columns=240, rows=50) as tui:
        tui.read_until(lambda out: b"Cannot reach the model server at http://alice:***@" in out)
        tui.press(F4, b"at http://alice:***@127.0.0.1")  # the profiles, each with its server
        assert tui.quit() == 0
    assert PASSWORD.encode() not in tui.output


def test_a_command_on_a_terminal_masks_it_too(nothing_listening: str) -> None:
    code, output = run_on_pty(["send", "hi"])
    assert code == 3
    assert nothing_listening.encode() in output
    assert PASSWORD.encode() not in output


URL = f"http://alice:{PASSWORD}@127.0.0.1:8080/v1"
MASKED = "http://alice:***@127.0.0.1:8080/v1"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (URL, MASKED),
        ("https://alice:p@ss@host/v1", "https://alice:***@host/v1"),  # a raw "@" in it
        ("https://sk-token-0123456789@host/v1", "https://***@host/v1"),  # a token alone
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("http://host/v1 (mail bob@example.com)", "http://host/v1 (mail bob@example.com)"),
    ],
)
def test_one_helper_masks_what_a_url_holds_before_its_host(url: str, shown: str) -> None:
    assert shown_url(url) == shown
    assert redact(f"failed: {url}") == f"failed: {shown}"


@pytest.mark.parametrize("outcome", ["found", "nothing", "not_openai", "needs_key", "bad_key"])
def test_setup_tells_what_answered_with_the_password_masked(outcome: UrlOutcome) -> None:
    answer = UrlAnswer(outcome, FoundServer("vllm", URL, ("m",)))
    assert MASKED in answer_line(URL, answer).plain
    assert PASSWORD not in answer_line(URL, answer).plain


def test_other_places_a_server_is_named_mask_the_password() -> None:
    assert MASKED in server_label(ServerView("vllm", URL, ("m",))).plain
    profile = ProviderProfile(name="p", base_url=URL, model="m")
    errors = [connection_error(URL), connection_error(URL, timeout=3)]
    errors.append(status_error(404, {}, model="m", base_url=URL))
    shown = [repr(profile), *map(str, errors), *map(repr, errors)]
    assert [text for text in shown if PASSWORD in text] == []
    assert all(MASKED in text for text in shown[:4])
