"""A command that plans with recall by meaning says what loading it took: `context` in a
note (its JSON and `send --json` in `recall_by_meaning`); by words, nothing is said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.testing.server import ScriptedModelServer

from .conftest import Run

QUESTION = "Which database did we pick?"


def test_context_says_what_recall_by_meaning_took(run: Run, server: ScriptedModelServer) -> None:
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    server.script("Noted.")
    code, out, _ = run("send", "--json", "--new", "We picked SQLite for the sync service.")
    assert code == 0
    sent = json.loads(out)["recall_by_meaning"]
    assert sent["loading_seconds"] > 0 and sent["left"] == 0

    code, _, err = run("context", "--offline", "--message", QUESTION)
    assert code == 0
    assert "recall by meaning took" in err and "loading its encoder" in err

    code, out, err = run("context", "--json", "--offline", "--message", QUESTION)
    assert code == 0 and "recall by meaning took" not in err
    figures = json.loads(out)["recall_by_meaning"]
    assert figures["loading_seconds"] > 0 and figures["left"] == 0


def test_by_words_nothing_is_said(run: Run, server: ScriptedModelServer, home: Path) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text() + "[recall]\nsemantic = false\n")
    server.script("Noted.")
    code, out, _ = run("send", "--json", "--new", "We picked SQLite for the sync service.")
    assert code == 0 and json.loads(out)["recall_by_meaning"] is None
    code, _, err = run("context", "--offline", "--message", QUESTION)
    assert code == 0 and "recall by meaning" not in err
    code, out, _ = run("context", "--json", "--offline", "--message", QUESTION)
    assert json.loads(out)["recall_by_meaning"] is None
