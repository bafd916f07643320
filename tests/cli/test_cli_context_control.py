"""`exclude`/`include`, `task`, `attach`/`detach`/`files`, `costs`, and the cost in `send
--json` and `conversations --json`: in process, as text and as JSON, with bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ctxchat.core.prices import PRICE_DATE
from ctxchat.testing.server import ScriptedModelServer

from .conftest import Run


@pytest.fixture
def talked(run: Run, server: ScriptedModelServer) -> list[int]:
    """A conversation of two turns; the ids of its four messages."""
    server.script("Here is the zanzibar log.", "Restore the dump.")
    assert run("send", "--new", "Paste the zanzibar log?")[0] == 0
    assert run("send", "What next?")[0] == 0
    _code, out, _ = run("export", "1", "--format", "json")
    return [message["id"] for message in json.loads(out)["messages"]]


def plan(run: Run) -> dict[str, Any]:
    code, out, err = run("context", "--json", "--offline")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def layer(data: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(entry for entry in data["layers"] if entry["layer"] == name)
    return found


def test_exclude_a_pair_then_include_it_again(run: Run, talked: list[int]) -> None:
    code, out, err = run("exclude", str(talked[0]), "--pair")
    assert (code, err) == (0, "")
    assert out.startswith(f"Excluded messages #{talked[0]} and #{talked[1]}: the next request: ")
    working = layer(plan(run), "working")
    assert [(o["ref"], o["reason"], o["detail"]) for o in working["left_out"]] == [
        (f"message:{talked[0]}", "excluded", "excluded by you"),
        (f"message:{talked[1]}", "excluded", "excluded by you"),
    ]
    code, out, _ = run("include", str(talked[1]), "--json")
    change = json.loads(out)
    assert (change["messages"], change["excluded"]) == ([talked[1]], False)
    assert change["difference"] == change["tokens_after"] - change["tokens_before"] > 0
    # Exported and imported, the exclusion stays.
    code, out, _ = run("export", "1", "--format", "json")
    assert [m["excluded"] for m in json.loads(out)["messages"]] == [True, False, False, False]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("exclude", "999"), "ctxchat: No message with id 999.\n"),
        (("include", "abc"), None),
    ],
)
def test_excluding_what_is_not_there_is_one_line(
    run: Run, talked: list[int], args: tuple[str, ...], message: str | None
) -> None:
    code, out, err = run(*args) if message else _argparse_failure(run, *args)
    assert code == 2 and out == ""
    if message:
        assert err == message


def _argparse_failure(run: Run, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as caught:
        run(*args)
    return int(str(caught.value.code)), "", ""


def test_the_task_from_the_command_line(run: Run, talked: list[int]) -> None:
    code, out, _ = run("task")
    assert out.startswith("Conversation 1 has no task yet")
    run("task", "set", "Migrate billing")
    run("task", "add", "Dump the database")
    run("task", "add", "Restore it")
    code, out, _ = run("task", "done", "1")
    assert out.splitlines()[:4] == [
        "Task of conversation 1:",
        "Goal: Migrate billing",
        "  1. [done] Dump the database",
        "  2. [pending] Restore it",
    ]
    code, out, _ = run("task", "--json")
    shown = json.loads(out)
    assert shown["steps"] == [
        {"number": 1, "text": "Dump the database", "done": True},
        {"number": 2, "text": "Restore it", "done": False},
    ]
    assert shown["tokens"] == layer(plan(run), "task")["tokens"] > 0
    code, out, err = run("task", "done", "7")
    assert (code, out, err) == (2, "", "ctxchat: there is no step 7: the task has steps 1 to 2\n")
    run("task", "reopen", "1")
    run("task", "rm", "2")
    code, out, _ = run("task", "add", "--json", "Switch the DSN")
    assert [s["text"] for s in json.loads(out)["steps"]] == ["Dump the database", "Switch the DSN"]
    run("task", "clear")
    assert layer(plan(run), "task")["items"] == []


def test_task_without_a_conversation_is_one_line(run: Run) -> None:
    code, out, err = run("task", "add", "x")
    assert (code, out) == (2, "")
    assert err == "ctxchat: there is no conversation yet: start one with `ctxchat send --new`\n"


def test_attach_list_refresh_and_detach(
    run: Run, talked: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text("The cluster is pg16-a.\n")
    code, out, err = run("attach", "notes.md")
    assert (code, err) == (0, "")
    message = layer(plan(run), "files")["tokens"]
    assert message > 25  # the file's block is 25, the header and framing come on top
    assert out.startswith(
        f"Attached notes.md (7 tokens; sent whole: the files message is {message} tokens "
        "with its framing, "
    )
    code, out, _ = run("files", "--json")
    (file,) = json.loads(out)["files"]
    assert (file["name"], file["sent"], file["disk"], file["changed"]) == (
        "notes.md",
        "whole",
        "same",
        False,
    )
    assert file["share"] == pytest.approx(file["sent_tokens"] / 7_000, abs=1e-4)
    (tmp_path / "notes.md").write_text("The cluster is pg17-b.\n")
    code, out, _ = run("files")
    assert "│ changed │" in out and "note: notes.md changed on disk since it was attached" in out
    code, out, err = run("attach", "notes.md")
    assert (code, out) == (2, "")
    assert err == (
        "ctxchat: notes.md is attached already and changed on disk since; attach it with "
        "--refresh to read it anew\n"
    )
    code, out, _ = run("attach", "notes.md", "--refresh", "--json")
    done = json.loads(out)
    assert (done["refreshed"], done["file"]["disk"]) == (True, "same")
    messages = plan(run)["messages"]
    assert any("pg17-b" in m["content"] for m in messages if m["layer"] == "files")
    # Exported and imported, the file comes along (its copy, not the disk's).
    code, out, _ = run("export", "1", "--format", "json", "-o", str(tmp_path / "c.json"))
    code, out, _ = run("import", str(tmp_path / "c.json"))
    code, out, _ = run("files", "--json", "--conversation", "2")
    assert [f["name"] for f in json.loads(out)["files"]] == ["notes.md"]
    code, out, _ = run("detach", "notes.md")
    assert out == "Detached notes.md: the next request no longer sends it.\n"
    code, out, _ = run("files")
    assert out == "No files are attached: `ctxchat attach PATH` attaches one.\n"
    code, out, err = run("detach", "notes.md")
    assert code == 2 and err.startswith("ctxchat: No file is attached from ")


@pytest.mark.parametrize(
    ("name", "content", "refusal"),
    [
        ("image.png", b"\x89PNG\r\n\x1a\n\0\0\0", "it is a binary file"),
        ("big.log", b"x" * 2_001, "it is 2.0 kB, over the limit of 2.0 kB ([files] max_bytes)"),
        ("missing.txt", None, "there is no such file"),
        ("folder", "dir", "it is a directory"),
        ("pipe", "fifo", "it is not a regular file (a device or pipe)"),
    ],
)
def test_what_cannot_be_attached_is_one_line_and_nothing_attached(
    run: Run,
    talked: list[int],
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    content: bytes | str | None,
    refusal: str,
) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text() + "[files]\nmax_bytes = 2000\n")
    monkeypatch.chdir(tmp_path)
    target = tmp_path / name
    if content == "dir":
        target.mkdir()
    elif content == "fifo":
        os.mkfifo(target)
    elif isinstance(content, bytes):
        target.write_bytes(content)
    code, out, err = run("attach", name)
    assert (code, out) == (2, "")
    assert err == f"ctxchat: cannot attach {name}: {refusal}\n"
    assert json.loads(run("files", "--json")[1])["files"] == []


def test_a_path_with_control_characters_never_reaches_the_terminal(
    run: Run, talked: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a\x1b]0;owned\x07b.txt").write_text("fine\n")
    code, out, err = run("attach", "a\x1b]0;owned\x07b.txt")
    assert code == 0 and "\x1b" not in out + err and "\x07" not in out
    assert out.startswith("Attached a?]0;owned?b.txt (")
    code, out, err = run("attach", "gone\x1b[2J.txt")
    assert code == 2 and "\x1b" not in err
    assert err.startswith("ctxchat: cannot attach gone")


def test_a_local_server_costs_nothing_and_says_so(run: Run, server: ScriptedModelServer) -> None:
    server.script("Four.")
    _code, out, _ = run("send", "--json", "--new", "2+2?")
    assert json.loads(out)["cost"] == {
        "status": "free",
        "amount": 0.0,
        "currency": "USD",
        "price_date": None,
        "price_source": None,
        "estimated": False,
        "note": "local server: no charge",
        "text": "free (local server)",
    }
    _code, out, _ = run("conversations", "--json")
    assert json.loads(out)[0]["cost"]["text"] == "free (local server)"


def test_a_priced_server_costs_its_usage_per_reply_conversation_and_day(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    config = home / "config.toml"
    config.write_text(
        config.read_text().replace('model = "gpt-4o"\n', 'model = "gpt-4o"\npricing = "priced"\n')
    )
    server.script("Four.", "Five words in this answer.")
    replies = []
    for question in ("2+2?", "And more?"):
        code, out, err = run("send", "--json", question)
        assert code == 0, err
        replies.append(json.loads(out))
    expected = [
        (r["usage"]["prompt_tokens"] * 2.50 + r["usage"]["completion_tokens"] * 10.0) / 1e6
        for r in replies
    ]
    assert [r["cost"]["amount"] for r in replies] == pytest.approx(expected)
    assert replies[0]["cost"]["price_date"] == PRICE_DATE
    code, out, _ = run("conversations", "--json")
    total = json.loads(out)[0]["cost"]
    assert (total["amount"], total["priced"], total["unknown"]) == (
        pytest.approx(sum(expected)),
        2,
        0,
    )
    code, out, _ = run("costs", "--json", "--days", "2")
    report = json.loads(out)
    assert [day["replies"] for day in report["days"]] == [0, 2]
    assert report["days"][-1]["amount"] == pytest.approx(sum(expected))
    assert [r["cost"]["status"] for r in report["replies"]] == ["priced", "priced"]
    code, out, _ = run("costs")
    assert "Conversation 1: $0.0" in out and f"as of {PRICE_DATE}" in out


def test_an_unknown_price_says_unknown_never_zero(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    config = home / "config.toml"
    text = config.read_text().replace(
        'model = "gpt-4o"\n', 'model = "house-model"\npricing = "priced"\n'
    )
    config.write_text(text)
    server.models.append("house-model")
    server.script("Hi.")
    code, out, err = run("send", "--json", "Hello")
    assert code == 0, err
    cost = json.loads(out)["cost"]
    assert (cost["status"], cost["amount"], cost["text"]) == (
        "unknown",
        None,
        "unknown (no price for house-model: add it under [prices])",
    )
    config.write_text(text + '[prices."house-model"]\ninput = 1.0\noutput = 2.0\n')
    code, out, _ = run("conversations", "--json")
    assert json.loads(out)[0]["cost"]["priced"] == 1
