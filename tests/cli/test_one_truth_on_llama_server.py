"""One truth on llama.cpp's server (in every CI run: the engine's xllamacpp serving SmolLM2):
a conversation growing past a 2,048-token window, each turn a `ctxchat send` of its own run,
with every layer in use (system prompt, memory, an automatic summary, recall, working
memory), behind a recording proxy. No request goes over the window by the server's own
count (its rendered prompt plus `max_tokens`), none is refused, and `ctxchat context
--json --message Q` in one run plans the very body `ctxchat send Q` sends in the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ctxchat.core.summary import SUMMARY_HEADER
from ctxchat.testing.proxy import RecordingProxy

from ..llama_server import running_llama_server, skip_reason

pytestmark = pytest.mark.integration

WINDOW = 2048
TURNS = 30
REPLY_ROOM = 96
PLACES = ("Oslo", "Lisbon", "Kyoto", "Quito", "Hanoi", "Tunis", "Perth", "Bergen")

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)


def turn_text(number: int) -> str:
    """A message of about 60 tokens, digits and names the server's tokenizer splits finer
    than ctxchat's estimate does."""
    place = PLACES[number % len(PLACES)]
    return (
        f"Note {number}: on 2024-{number % 12 + 1:02d}-{number % 27 + 1:02d} the team in "
        f"{place} logged {number * 37 + 11} parcels, order #{number * 7919 % 100000:05d}, "
        f"at {number % 24:02d}:{number * 13 % 60:02d}. Reply with one short sentence."
    )


@pytest.fixture(scope="module")
def server_root() -> Iterator[str]:
    with running_llama_server(WINDOW) as root:
        yield root


@pytest.fixture(scope="module")
def proxy(server_root: str) -> Iterator[RecordingProxy]:
    with RecordingProxy(server_root) as recording:
        yield recording


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, proxy: RecordingProxy) -> Path:
    folder = tmp_path_factory.mktemp("one-truth")
    (folder / "config.toml").write_text(
        'default_profile = "local"\n'
        "[profiles.local]\n"
        f'base_url = "{proxy.base_url}"\n'
        'model = "smollm2"\n'
        f"output_reserve = {REPLY_ROOM}\n"
        "[context]\n"
        'system_prompt = "You are terse. Answer in one sentence."\n'
        "min_recent = 4\n"
        "[summary]\n"
        "min_messages = 4\n"
        "accept_unreviewed = true\n",
        encoding="utf-8",
    )
    return folder


def ctxchat(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`ctxchat ARGS` in a process (a run) of its own."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    environment.update(
        CTXCHAT_CONFIG=str(home / "config.toml"),
        CTXCHAT_DATA_DIR=str(home / "data"),
        HOME=str(home),
        COLUMNS="200",
    )
    return subprocess.run(
        [sys.executable, "-m", "ctxchat.cli.main", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=900,
        check=False,
    )


def is_turn(body: dict[str, Any]) -> bool:
    """Whether a chat request is a turn of the test's (its new message one of `turn_text`'s),
    not a summary's or an extraction's."""
    last = body.get("messages", [{}])[-1]
    return last.get("role") == "user" and str(last.get("content", "")).startswith("Note ")


def chat_requests(proxy: RecordingProxy) -> list[tuple[int, dict[str, Any]]]:
    """(status, body) of every chat request the server answered."""
    return [
        (status, body)
        for path, status, body in proxy.answers
        if path.endswith("/chat/completions") and isinstance(body, dict)
    ]


def server_count(root: str, body: dict[str, Any]) -> int:
    """The server's own count of the prompt `body` sends: its template's rendering of the
    messages, tokenized by its tokenizer (special tokens included)."""
    with httpx2.Client(timeout=120) as client:
        rendered = client.post(f"{root}/apply-template", json={"messages": body["messages"]})
        rendered.raise_for_status()
        tokens = client.post(
            f"{root}/tokenize",
            json={"content": rendered.json()["prompt"], "add_special": True, "parse_special": True},
        )
        tokens.raise_for_status()
    return len(tokens.json()["tokens"])


@pytest.fixture(scope="module")
def grown(home: Path) -> Path:
    """The conversation grown past the window: two memory entries, then TURNS sends."""
    for text in ("The warehouse code is K-77.", "Parcels over 20 kg go by rail."):
        done = ctxchat(home, "memory", "add", "--kind", "fact", text)
        assert done.returncode == 0, done.stderr
    first = ctxchat(home, "send", "--new", turn_text(0))
    assert first.returncode == 0, first.stderr
    for number in range(1, TURNS):
        done = ctxchat(home, "send", turn_text(number))
        assert done.returncode == 0, f"turn {number}: {done.stderr}"
    return home


def test_thirty_turns_never_go_over_the_window_by_the_servers_count(
    grown: Path, proxy: RecordingProxy, server_root: str
) -> None:
    requests = chat_requests(proxy)
    refused = [status for status, _ in requests if status != 200]
    assert not refused, f"the server refused {len(refused)} requests: {refused}"
    streamed = [body for _, body in requests if body.get("stream")]
    # The turns: what `send` asked (the summaries' requests, streamed too, besides).
    turns = [body for body in streamed if is_turn(body)]
    assert len(turns) >= TURNS
    over = []
    for body in streamed:
        prompt = server_count(server_root, body)
        if prompt + int(body["max_tokens"]) > WINDOW:
            over.append((prompt, body["max_tokens"]))
    assert not over, f"requests over the {WINDOW}-token window by the server's count: {over}"
    last = turns[-1]["messages"]
    text = "\n".join(str(message["content"]) for message in last)
    # Every layer was in use by the end: memory, the summary, working memory, the input.
    assert "K-77" in text
    assert SUMMARY_HEADER in text
    assert turn_text(TURNS - 1) in text


def test_context_json_in_one_run_is_the_body_send_sends_in_the_next(
    grown: Path, proxy: RecordingProxy
) -> None:
    question = "Which team logged parcels in Kyoto, and on what date?"
    planned = ctxchat(grown, "context", "--json", "--message", question)
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    body = plan["request"]["body"]
    before = len(chat_requests(proxy))
    sent = ctxchat(grown, "send", question)
    assert sent.returncode == 0, sent.stderr
    wire = next(body for _, body in chat_requests(proxy)[before:] if body.get("stream"))
    assert wire["messages"] == body["messages"]
    assert wire["max_tokens"] == body["max_tokens"]
