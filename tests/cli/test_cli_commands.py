"""Each command of the command line, with what it prints and how it fails."""

from __future__ import annotations

import gc
import json
import os
import stat
from pathlib import Path

import pytest

from ctxchat.cli.confirm import confirm
from ctxchat.testing.server import Fault, ScriptedModelServer

from .conftest import Run

KEY = "sk-cli-secret-0123456789"


def test_send_streams_the_reply_and_stores_both_messages(
    run: Run, server: ScriptedModelServer
) -> None:
    server.script("Hello from the model.")
    code, out, _err = run("send", "Hi there")
    assert (code, out) == (0, "Hello from the model.\n")
    code, out, _ = run("conversations", "--json")
    rows = json.loads(out)
    assert [(r["title"], r["messages"]) for r in rows] == [("Hi there", 2)]
    code, out, _ = run("export", str(rows[0]["id"]), "--format", "json")
    exported = json.loads(out)
    assert [(m["role"], m["content"]) for m in exported["messages"]] == [
        ("user", "Hi there"),
        ("assistant", "Hello from the model."),
    ]


def test_send_json_prints_reply_usage_and_the_plan_sent(
    run: Run, server: ScriptedModelServer
) -> None:
    server.script("Four.")
    code, out, _ = run("send", "--json", "2+2?")
    assert code == 0
    data = json.loads(out)
    assert data["reply"]["content"] == "Four."
    assert data["usage"]["prompt_tokens"] == server.prompt_tokens(server.requests[-1]["messages"])
    sent = [{"role": m["role"], "content": m["content"]} for m in data["plan"]["messages"]]
    assert sent == server.requests[-1]["messages"]


def test_send_reads_standard_input(
    run: Run, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("from a pipe\n"))
    server.script("ok")
    code, out, _ = run("send")
    assert (code, out) == (0, "ok\n")
    assert server.requests[-1]["messages"][-1]["content"] == "from a pipe\n"


def test_provider_error_exits_3_with_one_line_and_keeps_the_message(
    run: Run, server: ScriptedModelServer
) -> None:
    server.fail_next(Fault.RATE_LIMIT, retry_after=7)
    code, out, err = run("send", "Still here?")
    assert code == 3
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("ctxchat: ")
    assert "7 seconds" in err
    assert KEY not in err
    code, out, _ = run("conversations", "--json")
    assert json.loads(out)[0]["messages"] == 2  # the user's message and the failed reply


def test_bad_usage_exits_2(run: Run) -> None:
    code, _, err = run("context", "--conversation", "999")
    assert code == 2
    assert err == "ctxchat: No conversation with id 999.\n"
    code, _, err = run("send", "   ")
    assert (code, err) == (2, "ctxchat: the message is empty\n")


def test_message_over_the_budget_is_refused_before_sending(
    run: Run, server: ScriptedModelServer
) -> None:
    code, _, err = run("send", "word " * 9000)
    assert code == 2
    assert "tokens over the budget of 7,000 tokens" in err
    assert server.requests == []


def test_context_table_and_json(run: Run, server: ScriptedModelServer) -> None:
    run("memory", "add", "The database is SQLite.", "--kind", "fact", "--pin")
    run("memory", "add", "Likes [bold]tea[/bold].", "--kind", "preference")
    server.script("ok")
    run("send", "hello")
    code, out, _ = run("context", "--json", "--mode", "objective")
    assert code == 0
    plan = json.loads(out)
    assert plan["mode"] == "objective"
    assert plan["budget"] == {
        "context_window": 8000,
        "output_reserve": 1000,
        "total": 7000,
        "shares": {
            "system": 0.1,
            "memory": 0.1,
            "summary": 0.2,
            "task": 0.0,
            "files": 0.0,
            "recall": 0.0,
            "working": 0.6,
        },
        "share_notes": [],
    }
    memory = next(layer for layer in plan["layers"] if layer["layer"] == "memory")
    assert [i["label"] for i in memory["items"]] == ["The database is SQLite."]
    assert [(o["reason"], o["detail"]) for o in memory["left_out"]] == [
        ("mode", "excluded: objective mode leaves out preferences")
    ]
    code, out, _ = run("context")
    assert code == 0
    assert "window 8,000 (config)" in out
    assert "Likes [bold]tea[/bold]." not in out  # personalization by default: it is included
    code, out, _ = run("context", "--mode", "objective")
    assert "memory:2 Likes [bold]tea[/bold]." in out  # shown literally, not as markup
    assert "excluded: objective mode leaves out preferences" in out


def test_memory_commands(run: Run) -> None:
    assert run("memory", "add", "Use UTC.", "--kind", "constraint", "--importance", "8")[0] == 0
    run("memory", "add", "Maybe the ORM is slow.", "--kind", "hypothesis")
    run("memory", "pin", "2")
    run("memory", "edit", "1", "--text", "Use UTC everywhere.", "--key", "time")
    code, out, _ = run("memory", "tag", "2", "fact", "--exclude")
    assert out == "Memory entry 2 is now fact, global, excluded.\n"
    code, out, _ = run("memory", "list", "--json")
    entries = json.loads(out)
    rows = [
        (e["id"], e["kind"], e["text"], e["key"], e["pinned"], e["importance"], e["enabled"])
        for e in sorted(entries, key=lambda e: e["id"])
    ]
    assert rows == [
        (1, "constraint", "Use UTC everywhere.", "time", False, 8, True),
        (2, "fact", "Maybe the ORM is slow.", None, True, 5, False),
    ]
    assert run("memory", "rm", "1")[0] == 0
    code, out, _ = run("memory", "list", "--json")
    assert [e["id"] for e in json.loads(out)] == [2]
    code, _, err = run("memory", "add", "x", "--importance", "11")
    assert (code, err) == (
        2,
        "ctxchat: Importance is 11; it must be a whole number from 1 to 10.\n",
    )


def test_export_markdown_and_import_round_trip(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    server.script("First reply.")
    run("send", "First question")
    code, md, _ = run("export", "1", "--format", "md")
    assert "First question" in md
    assert "First reply." in md
    target = home / "export.json"
    run("export", "1", "--format", "json", "--output", str(target))
    code, out, _ = run("import", str(target))
    assert out == "Imported as conversation 2.\n"
    one = json.loads(run("export", "1", "--format", "json")[1])
    two = json.loads(run("export", "2", "--format", "json")[1])
    assert [(m["role"], m["content"], m["tokens"]) for m in one["messages"]] == [
        (m["role"], m["content"], m["tokens"]) for m in two["messages"]
    ]
    bad = home / "bad.json"
    bad.write_text("{not json")
    code, _, err = run("import", str(bad))
    assert code == 2
    assert err.startswith(f"ctxchat: {bad} is not a JSON export")


def test_config_init_show_path(run: Run, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = home / "fresh" / "config.toml"
    code, out, _ = run("--config", str(fresh), "config", "init")
    assert code == 0
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(fresh.parent).st_mode) == 0o700
    code, _, err = run("--config", str(fresh), "config", "init")
    assert code == 2
    assert "already exists" in err
    code, out, _ = run("config", "path")
    assert f"config_file: {home / 'config.toml'}" in out
    code, out, _ = run("config", "show")
    assert KEY not in out
    assert json.loads(out)["settings"]["default_profile"] == "test"


def test_broken_config_is_one_line_with_file_and_line(run: Run, home: Path) -> None:
    (home / "config.toml").write_text('[context]\nmin_recent = "ten"\n')
    code, _out, err = run("conversations")
    assert code == 1
    assert err.count("\n") == 1
    assert "config.toml:2: context.min_recent: expected a whole number" in err


def test_corrupt_database_is_named_and_moved_only_on_consent(run: Run, home: Path) -> None:
    data = home / "data"
    data.mkdir()
    (data / "ctxchat.db").write_bytes(b"this is not sqlite at all" * 100)
    code, _, err = run("conversations")
    assert code == 1
    assert str(data / "ctxchat.db") in err
    assert "ctxchat db move-aside" in err
    assert (data / "ctxchat.db").exists()
    code, _, err = run("db", "move-aside")
    assert code == 2
    assert "pass --yes" in err
    code, _out, _ = run("db", "move-aside", "--yes")
    assert code == 0
    assert not (data / "ctxchat.db").exists()
    assert run("conversations")[0] == 0


def test_summarize_command(run: Run, server: ScriptedModelServer) -> None:
    server.default_reply = "reply"
    for i in range(5):
        run("send", "--no-summarize", f"question {i}")
    server.script("The user asked five questions.")
    code, out, _ = run("summarize")
    assert code == 0
    assert out.startswith("Summary v1 covers messages 1-6")
    code, out, _ = run("context", "--json")
    summary = next(layer for layer in json.loads(out)["layers"] if layer["layer"] == "summary")
    assert summary["items"][0]["ref"] == "summary:v1"


def test_send_folds_automatically(run: Run, server: ScriptedModelServer) -> None:
    def answer(body: dict[str, object]) -> str:
        messages = body["messages"]
        assert isinstance(messages, list)
        if str(messages[0]["content"]).startswith("You maintain the running summary"):
            return "Summary of the early questions."
        return "long " * 1200  # long replies push old turns out of working memory

    server.default_reply = answer
    notes = []
    for i in range(6):
        code, out, err = run("send", f"question {i}")
        assert code == 0
        notes.append(err)
    folded = [n for n in notes if "into summary v1" in n]
    assert folded == ["ctxchat: folded 2 messages into summary v1.\n"]  # min_messages = 2
    summarizer = [
        r
        for r in server.requests
        if str(r["messages"][0]["content"]).startswith("You maintain the running summary")
    ]
    assert len(summarizer) == 1
    assert "[user] question 0" in summarizer[0]["messages"][1]["content"]
    code, out, _ = run("context", "--json")
    layers = {layer["layer"]: layer for layer in json.loads(out)["layers"]}
    assert layers["summary"]["items"][0]["ref"] == "summary:v1"


def test_missing_key_variable_is_named_not_shown(
    run: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CTXCHAT_TEST_KEY")
    code, out, err = run("send", "hello")
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert "CTXCHAT_TEST_KEY" in err
    assert KEY not in err
    # The message was not sent, and no empty conversation was left behind for it.
    assert json.loads(run("conversations", "--json")[1]) == []


@pytest.mark.parametrize(
    ("argv", "collecting"), [([], False), (["conversations"], True)], ids=["tui", "command"]
)
@pytest.mark.perf
def test_the_cycle_collector_is_off_only_while_the_tui_starts(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], collecting: bool
) -> None:
    """Protects the TUI's first frame from cycle collections, and commands from running
    without the collector."""
    from ctxchat.cli import main as cli_main
    from ctxchat.cli import run as cli_run

    seen: list[bool] = []

    def run(args: object) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(cli_run, "run", run)
    try:
        assert cli_main.main(argv) == 0
    finally:
        gc.enable()
    assert seen == [collecting]


@pytest.mark.parametrize(
    ("answer", "agreed"), [("y", True), (" YES ", True), ("", False), ("n", False)]
)
def test_confirm_agrees_only_to_yes_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, answer: str, agreed: bool
) -> None:
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return answer

    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", ask)
    assert confirm("Replace it?") is agreed
    assert asked == ["Replace it? [y/N] "]
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert confirm("Replace it?") is False  # no terminal: never


def test_memory_supersession_and_restore(run: Run) -> None:
    run("memory", "add", "The database is MySQL 8.", "--key", "database")
    code, out, _ = run("memory", "add", "The database is PostgreSQL.", "--key", "database")
    assert out == (
        "Added memory entry 2 (fact, global).\nMemory entry 1 is kept as superseded by 2.\n"
    )
    code, out, _ = run("memory", "list", "--json")
    old, new = sorted(json.loads(out), key=lambda e: e["id"])
    assert (old["superseded_by"], new["superseded_by"]) == (2, None)
    assert old["provenance"] == "typed by hand"
    code, out, _ = run("memory", "list")
    assert "superseded by memory:2 on" in out
    code, out, _ = run("memory", "restore", "1")
    assert (code, out) == (
        0,
        "Restored memory #1: it is current again and goes into requests while the memory "
        "budget has room.\n",
    )
    code, out, _ = run("memory", "list", "--json")
    old, new = sorted(json.loads(out), key=lambda e: e["id"])
    assert (old["superseded_by"], new["superseded_by"]) == (None, 1)
    code, _, err = run("memory", "restore", "1")
    assert (code, err) == (2, "ctxchat: Memory entry 1 is not superseded; nothing to restore.\n")
    run("memory", "add", "Deploys on Fridays.")
    code, out, _ = run("memory", "add", "Deploys on Mondays.", "--replaces", "3")
    assert "Memory entry 3 is kept as superseded by 4." in out


def test_config_show_gives_the_theme_and_mode_in_force_and_that_the_app_chose_them(
    run: Run, home: Path
) -> None:
    code, out, _ = run("config", "show")
    shown = json.loads(out)
    assert (shown["settings"]["theme"], shown["sources"]["theme"]) == ("textual-dark", "default")
    data = home / "data"
    data.mkdir(exist_ok=True)
    # What the app writes when a theme is picked in the palette and the mode switched.
    (data / "state.toml").write_text('version = 1\ntheme = "nord"\nlast_mode = "objective"\n')
    code, out, _ = run("config", "show")
    assert code == 0
    shown = json.loads(out)
    assert shown["settings"]["theme"] == "nord"
    assert shown["settings"]["default_mode"] == "objective"
    assert shown["sources"]["theme"] == "state: last chosen in the app"
    assert shown["sources"]["default_mode"] == "state: last chosen in the app"
