"""One plan, whoever asks: `ctxchat context --json --message Q` in one run is the request
`ctxchat send Q` sends in another, on a server that counts with its own tokenizer, for a
conversation larger than its window; and it fits by the server's count, reply included."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxchat.cli.main import main
from ctxchat.store import Store
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.testing.server.flavours import llama_cpp_prompt_tokens

from .conftest import KEY

Run = Callable[..., tuple[int, str, str]]
WINDOW = 2048
QUESTION = "Which turn said Wow first?"


def wows(number: int) -> str:
    """Every "!" is a token to the server: far more than ctxchat's estimate counts."""
    return f"Turn {number}: " + "Wow!!!! " * 12


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    """llama.cpp's server with a 2,048-token window: it counts (`/tokenize` of its
    `/apply-template` rendering) and refuses what is over."""
    with ScriptedModelServer(
        flavour=Flavour.LLAMA_CPP, models=["local"], n_ctx=WINDOW, requires_key=KEY
    ) as running:
        yield running


@pytest.fixture
def run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: ScriptedModelServer,
    capsys: pytest.CaptureFixture[str],
) -> Run:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config.toml"
    config.write_text(
        'default_profile = "local"\n[profiles.local]\n'
        f'base_url = "{server.base_url}"\nmodel = "local"\napi_key_env = "CTXCHAT_TEST_KEY"\n'
    )
    monkeypatch.setenv("CTXCHAT_TEST_KEY", KEY)
    monkeypatch.setenv("CTXCHAT_CONFIG", str(config))
    monkeypatch.setenv("CTXCHAT_DATA_DIR", str(tmp_path / "data"))
    with Store.open(tmp_path / "data" / "ctxchat.db") as store:
        conversation = store.conversations.create_conversation("Wows").id
        for number in range(40):
            text = wows(number)
            store.messages.add_message(
                conversation, "user", text, tokens=0, exact=False, encoding="e"
            )
            store.messages.add_message(
                conversation, "assistant", f"You said: {text}", tokens=0, exact=False, encoding="e"
            )

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def test_context_in_one_run_is_the_request_send_sends_in_another(
    run: Run, server: ScriptedModelServer
) -> None:
    code, out, err = run("context", "--json", "--embed-all", "--message", QUESTION)
    assert code == 0, err
    planned = json.loads(out)
    body = planned["request"]["body"]
    # The plan fits the window by the server's count, its reply's room included.
    counted = llama_cpp_prompt_tokens(server, body["messages"])
    assert counted + body["max_tokens"] <= WINDOW
    assert planned["server_tokens"] == counted
    assert planned["free"] == WINDOW - body["max_tokens"] - counted

    code, out, err = run("send", "--json", "--embed-all", "--no-summarize", QUESTION)
    assert code == 0, err
    sent = server.requests[-1]
    assert sent["messages"] == body["messages"]
    assert sent["max_tokens"] == body["max_tokens"]
    assert json.loads(out)["reply"]["status"] == "complete"

    # A new run plans the next question as it will be sent, again.
    code, out, err = run("context", "--json", "--embed-all", "--message", "And the last?")
    assert code == 0, err
    again = json.loads(out)["request"]["body"]
    code, out, err = run("send", "--json", "--embed-all", "--no-summarize", "And the last?")
    assert code == 0, err
    assert server.requests[-1]["messages"] == again["messages"]
    assert llama_cpp_prompt_tokens(server, again["messages"]) + again["max_tokens"] <= WINDOW
