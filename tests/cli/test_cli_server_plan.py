"""`ctxchat context` against servers that count with their own tokenizer and templates that
drop system messages: the plan printed is the one counted and sent."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ctxchat.cli.main import main
from ctxchat.core.placement import CONTEXT_OPENING
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.testing.server.script import count_prompt_tokens

from .conftest import KEY

Run = Callable[..., tuple[int, str, str]]


def without_system(messages: Sequence[Mapping[str, Any]]) -> int:
    return count_prompt_tokens([m for m in messages if m.get("role") != "system"])


@pytest.fixture(params=["keeps-system", "drops-system"])
def server(request: pytest.FixtureRequest) -> Iterator[ScriptedModelServer]:
    """llama-cpp-python (its own tokenizer), its template keeping or dropping system messages."""
    counts = without_system if request.param == "drops-system" else count_prompt_tokens
    with ScriptedModelServer(
        flavour="llama-cpp-python", models=["gemma"], prompt_tokens=counts, requires_key=KEY
    ) as running:
        yield running


@pytest.fixture
def run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: ScriptedModelServer,
    capsys: pytest.CaptureFixture[str],
) -> Run:
    """`ctxchat ARGS` on a config that names no window: the server is asked."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config.toml"
    config.write_text(
        'default_profile = "local"\n[profiles.local]\n'
        f'base_url = "{server.base_url}"\nmodel = "gemma"\napi_key_env = "CTXCHAT_TEST_KEY"\n'
    )
    monkeypatch.setenv("CTXCHAT_TEST_KEY", KEY)
    monkeypatch.setenv("CTXCHAT_CONFIG", str(config))
    monkeypatch.setenv("CTXCHAT_DATA_DIR", str(tmp_path / "data"))
    store = Store.open(tmp_path / "data" / "ctxchat.db")
    conversation = store.conversations.create_conversation("Ports").id
    for role, text in [("user", "Which port?"), ("assistant", "Port 5432.")]:
        store.messages.add_message(conversation, role, text, tokens=5, exact=False, encoding="e")
    store.close()

    def invoke(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def test_context_json_gives_the_servers_count_not_an_estimate_waiting_for_it(
    run: Run, server: ScriptedModelServer
) -> None:
    code, out, err = run("context", "--json", "--message", "And the host?")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["counter"]["exact"] is True
    assert "not counted by the server yet" not in plan["counter"]["note"]
    assert plan["counter"]["note"].startswith("exact: server tokenizer")


def test_context_json_shows_system_content_where_the_template_lets_it_reach_the_model(
    run: Run, server: ScriptedModelServer, request: pytest.FixtureRequest
) -> None:
    drops = request.node.callspec.params["server"] == "drops-system"
    code, out, err = run("context", "--json", "--message", "And the host?")
    assert code == 0, err
    plan = json.loads(out)
    body = plan["request"]["body"]["messages"]
    if drops:
        assert plan["system_placement"] == "first-user"
        assert [m["role"] for m in body] == ["user", "assistant", "user"]
        assert body[0]["content"].startswith(CONTEXT_OPENING)
        assert plan["messages"][0]["parts"][0]["layer"] == "system"
        assert [m["role"] for m in plan["messages"]] == ["user", "assistant", "user"]
    else:
        assert "system_placement" not in plan
        assert [m["role"] for m in body] == ["system", "user", "assistant", "user"]
