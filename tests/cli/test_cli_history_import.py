"""`ctxchat import` with another tool's history: what it says, the origin it leaves on each
conversation in the list, `--dry-run`, and a damaged file refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.importers.chatgpt_export import short, trip

from .conftest import Run


def chatgpt_file(home: Path) -> Path:
    path = home / "conversations.json"
    path.write_text(json.dumps([trip(), short("c2", "Hello", "Hi!")]), encoding="utf-8")
    return path


def test_an_export_is_imported_and_its_origin_listed(run: Run, home: Path) -> None:
    path = chatgpt_file(home)
    code, out, err = run("import", str(path))
    assert (code, err) == (0, "")
    assert out == (
        "Imported 3 conversations from ChatGPT (12 messages, 2 other answers as variants) "
        "as conversations 1–3.\n"
    )
    code, out, _ = run("conversations")
    assert "from" in out.splitlines()[1] and out.count("ChatGPT") == 3
    listed = json.loads(run("conversations", "--json")[1])
    assert {c["title"]: c["origin"] for c in listed} == {
        "Trip to Oslo": {"from": "chatgpt", "id": "conv-trip"},
        "Trip to Oslo (branch 2)": {"from": "chatgpt", "id": "conv-trip#brunost"},
        "Hello": {"from": "chatgpt", "id": "c2"},
    }
    code, out, _ = run("import", str(path))
    assert out == (
        "Nothing new to import from ChatGPT. 3 were imported before and are left as they are.\n"
    )
    assert len(json.loads(run("conversations", "--json")[1])) == 3


def test_a_dry_run_lists_what_would_come_and_changes_nothing(run: Run, home: Path) -> None:
    code, out, _ = run("import", str(chatgpt_file(home)), "--dry-run")
    assert code == 0
    assert out == (
        "  new    Trip to Oslo (5 messages)\n"
        "  new    Trip to Oslo (branch 2) (5 messages)\n"
        "  new    Hello (2 messages)\n"
        "Would import 3 conversations from ChatGPT (12 messages, 2 other answers as variants). "
        "Nothing was changed.\n"
    )
    assert json.loads(run("conversations", "--json")[1]) == []


def test_a_damaged_export_is_one_line_and_imports_nothing(run: Run, home: Path) -> None:
    bad = short("c3", "Broken", "x")
    bad["mapping"]["a"]["children"] = "a"
    path = home / "conversations.json"
    path.write_text(json.dumps([trip(), bad]), encoding="utf-8")
    code, out, err = run("import", str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"ctxchat: {path} is not ChatGPT's data export (conversations.json) as ctxchat reads "
        "it: conversation 2 “Broken”: mapping['a'].children: expected a list, found a string; "
        "nothing was imported\n"
    )
    assert json.loads(run("conversations", "--json")[1]) == []
