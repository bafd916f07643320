"""Profiles fully wired: their headers on every request, the summarizer on its own profile's
server, and `--base-url` / `OPENAI_BASE_URL` giving the summarizer the chat's server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from ctxchat.chat.extractor import extract_facts
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import make_backend
from ctxchat.chat.summarizer import Summarizer
from ctxchat.cli.main import main
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings
from ctxchat.store import Store
from ctxchat.testing.server import Flavour, RecordedRequest, ScriptedModelServer

Run = Callable[..., tuple[int, str, str]]
SUMMARY_KEY = "sk-summary-secret-0123456789"
SUMMARY_PROMPT = "You maintain the running summary"


def header(request: RecordedRequest, name: str) -> str | None:
    """A header as the server received it (HTTP header names are not case-sensitive)."""
    return {k.lower(): v for k, v in request.headers.items()}.get(name.lower())


def is_summary(request: RecordedRequest) -> bool:
    return str(request["messages"][0]["content"]).startswith(SUMMARY_PROMPT)


@pytest.fixture
def summary_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["tiny"], requires_key=SUMMARY_KEY) as running:
        yield running


def add_to_config(home: Path, text: str) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text() + text)


async def test_profile_headers_go_with_every_request(tmp_path: Path) -> None:
    """Chat, the model list, the server probes, token counts, summaries and extraction."""
    profile = ProviderProfile(
        "gateway",
        "",
        "gpt-4o",
        headers={"HTTP-Referer": "https://ctxchat.example", "X-Tenant": "acme"},
    )
    with ScriptedModelServer(models=["gpt-4o"], flavour=Flavour.LLAMA_CPP) as server:
        profile = replace(profile, base_url=server.base_url)
        settings = Settings(
            profiles={"gateway": profile},
            default_profile="gateway",
            context=ContextSettings(min_recent=2),
        )
        store = Store.open(tmp_path / "db")
        conversation = store.conversations.create_conversation().id
        session = ChatSession(
            store, settings, profile, conversation, backend=make_backend(profile, {})
        )
        try:
            server.default_reply = "A reply."
            for role, text in [("user", "one"), ("assistant", "two")] * 3:
                store.messages.add_message(
                    conversation, role, text, tokens=4, exact=False, encoding="estimate"
                )
            backend = session.backend
            assert backend is not None
            await backend.list_models()
            await backend.describe_server("gpt-4o", None)
            await backend.count_tokens("Hello")
            [_ async for _ in backend.stream_reply([{"role": "user", "content": "hi"}], model="m")]
            session.invalidate()
            fold = session.pending_fold(manual=True)
            assert fold is not None
            await Summarizer.for_session(session).fold(fold)
            server.script("[]")
            await extract_facts(session)
        finally:
            await session.aclose()
            store.close()
        paths = {r.path for r in [*server.requests, *server.other_requests]}
        assert {"/v1/models", "/props", "/tokenize", "/apply-template"} <= paths
        for request in [*server.requests, *server.other_requests]:
            assert header(request, "X-Tenant") == "acme", request.path
            assert header(request, "HTTP-Referer") == "https://ctxchat.example", request.path
        # The reply, the summary, the extraction (llama.cpp's template is calibrated from
        # its rendering, without a chat request).
        assert len(server.requests) == 3


def test_the_summarizer_talks_to_its_own_profiles_server(
    run: Run,
    home: Path,
    server: ScriptedModelServer,
    summary_server: ScriptedModelServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SUMMARY_KEY", SUMMARY_KEY)
    add_to_config(
        home,
        'profile = "small"\n'
        "[profiles.small]\n"
        f'base_url = "{summary_server.base_url}"\n'
        'model = "tiny"\n'
        'api_key_env = "SUMMARY_KEY"\n'
        "[profiles.small.headers]\n"
        '"X-Summary" = "yes"\n',
    )
    server.default_reply = "reply"
    for i in range(5):
        assert run("send", "--no-summarize", f"question {i}")[0] == 0
    summary_server.script("The user asked five questions.")
    code, out, err = run("summarize")
    assert (code, err) == (0, "")
    assert out.startswith("Summary v1 covers messages 1-6")
    assert not any(is_summary(r) for r in server.requests)
    [request] = summary_server.requests
    assert is_summary(request) and request["model"] == "tiny"
    assert header(request, "Authorization") == f"Bearer {SUMMARY_KEY}"
    assert header(request, "X-Summary") == "yes"


@pytest.mark.parametrize("how", ["options", "environment"])
def test_a_server_from_the_command_line_summarizes_too(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No config at all: `--base-url … --model …` (or OPENAI_BASE_URL) is the summarizer's
    server as it is the chat's."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CTXCHAT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTXCHAT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("CTXCHAT_DATA_DIR", str(tmp_path / "data"))
    with ScriptedModelServer(models=["local"]) as local:
        if how == "options":
            server_args = ["--base-url", local.base_url, "--model", "local"]
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", local.base_url)
            server_args = ["--model", "local"]
        local.default_reply = "reply"
        for i in range(12):
            assert main(["send", *server_args, "--no-summarize", f"question {i}"]) == 0
        local.script("Twelve questions so far.")
        capsys.readouterr()
        code = main(["summarize", *server_args])
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        assert out.startswith("Summary v1 covers messages 1-")
        assert is_summary(local.requests[-1]) and local.requests[-1]["model"] == "local"
