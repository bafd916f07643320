"""Which tool a file comes from is recognised from its start."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxchat.cli.main import IMPORT_SOURCES
from ctxchat.store import Store
from ctxchat.store.importers import SOURCES, detect_source

from .chatgpt_export import trip
from .claude_export import linear
from .conftest import write_json
from .open_webui_export import compare, older
from .test_llm_logs import LEGACY


@pytest.mark.parametrize(
    ("data", "source"),
    [
        ([trip()], "chatgpt"),
        ({"conversations": [trip()]}, "chatgpt"),
        ([linear()], "claude"),
        ([compare()], "open-webui"),
        ([older()], "open-webui"),
        (compare(), "open-webui"),
        ([], None),
    ],
)
def test_each_export_is_recognised(tmp_path: Path, data: Any, source: str | None) -> None:
    assert detect_source(write_json(tmp_path / "export.json", data)) == source


def test_llm_and_ctxchat_files_are_recognised(store: Store, tmp_path: Path) -> None:
    assert detect_source(Path(shutil.copy(LEGACY, tmp_path / "logs.db"))) == "llm"
    conversation = store.conversations.create_conversation("Mine")
    exported = tmp_path / "mine.json"
    exported.write_text(
        json.dumps(store.transfer.export_conversation(conversation.id)), encoding="utf-8"
    )
    assert detect_source(exported) == "ctxchat"


def test_the_command_line_offers_every_source() -> None:
    assert tuple(SOURCES) == IMPORT_SOURCES
