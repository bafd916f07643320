"""A server given with no model named: its only model is the one talked to (llama.cpp and
llama-cpp-python serve one), so the request, the window and the counts are that model's;
a server with several says how to pick one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxchat.cli.main import main
from ctxchat.testing.server import Flavour, ScriptedModelServer

MODEL = "/models/gemma-3-270m-q4_k_m.gguf"


@pytest.fixture(autouse=True)
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTXCHAT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("CTXCHAT_DATA_DIR", str(tmp_path / "data"))


def context_json(base_url: str, capsys: pytest.CaptureFixture[str]) -> Any:
    assert main(["context", "--base-url", base_url, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_servers_only_model_is_planned_for_and_sent_to(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ScriptedModelServer(
        models=[MODEL], flavour=Flavour.LLAMA_CPP_PYTHON, n_ctx=4096
    ) as server:
        plan = context_json(server.base_url, capsys)
        server.script("Hello.")
        assert main(["send", "--base-url", server.base_url, "--no-summarize", "hi"]) == 0

    assert plan["request"]["body"]["model"] == MODEL
    assert (plan["window_source"], plan["budget"]["context_window"]) == ("probed", 4096)
    assert server.requests[-1]["model"] == MODEL


def test_a_server_with_several_models_says_how_to_pick_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ScriptedModelServer(models=["qwen3:4b", "llama3.2"], flavour=Flavour.OLLAMA) as server:
        plan = context_json(server.base_url, capsys)

    assert (
        "No model is named and the server offers 2: pick one with F4, --model or `model` "
        "in the config."
    ) in plan["warnings"]


def model_lists(server: ScriptedModelServer) -> int:
    return sum(request.path == "/v1/models" for request in server.other_requests)


def test_each_command_asks_for_the_model_list_once(capsys: pytest.CaptureFixture[str]) -> None:
    """The reachability check's list serves adopting the only model and the window probe."""
    with ScriptedModelServer(
        models=[MODEL], flavour=Flavour.LLAMA_CPP_PYTHON, n_ctx=4096
    ) as server:
        plan = context_json(server.base_url, capsys)
        after_context = model_lists(server)
        server.script("Hello.")
        assert main(["send", "--base-url", server.base_url, "--no-summarize", "hi"]) == 0

    assert plan["window_source"] == "probed"
    assert after_context == 1
    assert model_lists(server) == 2
    assert server.requests[-1]["model"] == MODEL
