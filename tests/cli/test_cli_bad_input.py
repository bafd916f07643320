"""Bad input and faults at the door: one clear line, nothing lost, never a traceback."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from ctxchat.testing.server import Fault, ScriptedModelServer

from .pty_process import PtyProcess, Run


@pytest.fixture
def exported(run: Run, server: ScriptedModelServer, home: Path) -> Path:
    server.script("Hello back.")
    assert run("send", "Hello")[0] == 0
    code, out, _ = run("export", "1", "--format", "json")
    assert code == 0
    path = home / "export.json"
    path.write_text(out, encoding="utf-8")
    return path


def one_line(err: str) -> str:
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("content", ["a", "list"], "messages[0].content: expected text"),
        ("content", {"an": "object"}, "messages[0].content: expected text"),
        ("created_at", "2024-01-01", "messages[0].created_at: expected a number"),
        ("tokens", "7", "messages[0].tokens: expected a whole number"),
        ("updated_at", 10**20, "messages[0].updated_at: expected a time from 1970 to 9999"),
    ],
)
def test_import_of_wrong_types_names_them_and_imports_nothing(
    run: Run, exported: Path, field: str, value: object, said: str
) -> None:
    data = json.loads(exported.read_text(encoding="utf-8"))
    data["messages"][0][field] = value
    exported.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run("import", str(exported))
    assert code != 0
    assert said in one_line(err)
    # Nothing was imported, and every command still works.
    code, out, _ = run("conversations", "--json")
    assert [c["id"] for c in json.loads(out)] == [1]
    for args in (("conversations",), ("export", "1"), ("context",)):
        assert run(*args)[0] == 0


def test_a_row_poisoned_by_an_older_import_does_not_stop_the_list(
    run: Run, exported: Path, home: Path
) -> None:
    with sqlite3.connect(home / "data" / "ctxchat.db") as conn:
        conn.execute("UPDATE conversations SET updated_at = 'yesterday', created_at = 1e300")
        conn.execute("UPDATE messages SET tokens = 'many', created_at = 'today'")
    code, out, err = run("conversations")
    assert code == 0, err
    assert "?" in out
    for args in (("export", "1", "--format", "md"), ("export", "1"), ("context",)):
        code, out, err = run(*args)
        assert code == 0, (args, err)


def test_export_into_a_missing_folder_is_one_line(run: Run, exported: Path, home: Path) -> None:
    target = home / "no" / "such" / "folder" / "out.md"
    code, _, err = run("export", "1", "-o", str(target))
    assert code == 2
    assert one_line(err) == f"ctxchat: cannot write {target}: No such file or directory\n"


def ctxchat_process(
    args: list[bytes], *, stdin: bytes = b"", env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """`ctxchat ARGS` as a real process, its arguments and standard input given as bytes."""
    return subprocess.run(
        [sys.executable.encode(), b"-m", b"ctxchat.cli.main", *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def stored_texts(home: Path) -> list[str]:
    """Every title and message the database holds (it may not exist yet)."""
    path = home / "data" / "ctxchat.db"
    if not path.exists():
        return []
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT title FROM conversations UNION ALL SELECT content FROM messages"
        )
        return [text for (text,) in rows]


# Python reads standard input with errors="surrogateescape" in a C or C.UTF-8 locale, and
# "strict" in other UTF-8 ones: the answer must not depend on which.
LOCALES = {
    "C.UTF-8": {"LC_ALL": "C.UTF-8"},
    "surrogateescape": {"PYTHONIOENCODING": "utf-8:surrogateescape"},
    "strict": {"PYTHONIOENCODING": "utf-8:strict"},
}


@pytest.mark.parametrize("locale", LOCALES)
def test_invalid_utf8_on_standard_input_is_one_line_and_nothing_is_stored(
    home: Path, server: ScriptedModelServer, locale: str
) -> None:
    done = ctxchat_process([b"send", b"--new"], stdin=b"hi \xff\xfe there", env=LOCALES[locale])
    assert done.returncode == 2
    assert done.stdout == b""
    assert one_line(done.stderr.decode()) == (
        "ctxchat: standard input is not UTF-8 text (byte 0xff at offset 3); nothing was sent\n"
    )
    assert server.requests == []
    assert stored_texts(home) == []


def test_valid_utf8_on_standard_input_is_sent_as_text_mode_reads_it(
    run: Run, server: ScriptedModelServer, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.script("Noted.")
    piped = io.TextIOWrapper(io.BytesIO("café\r\nnaïve\rend".encode()), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", piped)
    assert run("send", "--new")[0] == 0
    assert server.requests[-1]["messages"][-1]["content"] == "café\nnaïve\nend"
    assert "café\nnaïve\nend" in stored_texts(home)


# Free-text arguments with bytes that are not UTF-8, and the start of the line naming them.
NOT_UTF8_ARGUMENTS = {
    "send": ([b"send", b"hi \xff there"], "ctxchat send: argument text"),
    "send --title": ([b"send", b"--title", b"caf\xe9", b"hi"], "ctxchat send: argument --title"),
    "memory add": ([b"memory", b"add", b"\xc3"], "ctxchat memory add: argument text"),
    "memory add --key": (
        [b"memory", b"add", b"x", b"--key", b"\xff"],
        "ctxchat memory add: argument --key",
    ),
    "memory edit --text": (
        [b"memory", b"edit", b"1", b"--text", b"\xff"],
        "ctxchat memory edit: argument --text",
    ),
    "context --message": (
        [b"context", b"--message", b"\xff"],
        "ctxchat context: argument --message",
    ),
    "conversations --search": (
        [b"conversations", b"--search", b"\xff"],
        "ctxchat conversations: argument --search",
    ),
    "--model": ([b"--model", b"\xff", b"context"], "ctxchat: argument --model"),
    "--profile": ([b"send", b"--profile", b"\xff", b"hi"], "ctxchat send: argument --profile"),
    "--base-url": (
        [b"send", b"--base-url", b"http://\xff", b"hi"],
        "ctxchat send: argument --base-url",
    ),
    "ask-again --without": (
        [b"ask-again", b"1", b"--without", b"\xff"],
        "ctxchat ask-again: argument --without",
    ),
}


@pytest.mark.parametrize("given", NOT_UTF8_ARGUMENTS)
def test_an_argument_that_is_not_utf8_is_one_line_and_nothing_is_stored(
    home: Path, server: ScriptedModelServer, given: str
) -> None:
    args, said = NOT_UTF8_ARGUMENTS[given]
    done = ctxchat_process(args, env={"LC_ALL": "C.UTF-8"})
    assert done.returncode == 2
    assert done.stdout == b""
    line = one_line(done.stderr.decode())
    assert line.startswith(f"{said}: not UTF-8 text (byte 0x"), line
    assert server.requests == []
    assert stored_texts(home) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_half_a_character_in_a_reply_is_written_and_stored_as_a_replacement(
    home: Path, server: ScriptedModelServer, locale: str
) -> None:
    # A JSON escape of a lone surrogate is valid JSON; UTF-8 has no bytes for it.
    server.script("half \udcff and \ud800 end")
    done = ctxchat_process([b"send", b"hello"], env=LOCALES[locale])
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == "half \ufffd and \ufffd end\n"
    assert "half \ufffd and \ufffd end" in stored_texts(home)


def test_bytes_typed_into_the_app_that_are_not_utf8_arrive_as_replacements(
    home: Path, server: ScriptedModelServer
) -> None:
    server.script("Noted.")
    with PtyProcess([], columns=120, rows=30) as tui:
        tui.read_until(lambda out: b"Quit" in out)  # the footer: the app is up
        tui.press(b"hi \xff\xfe there", "hi \ufffd\ufffd there".encode())
        tui.press(b"\r", b"Noted.")
        assert tui.process.poll() is None, tui.tail()
        assert tui.quit() == 0
    assert b"Traceback" not in tui.output
    assert server.requests[-1]["messages"][-1]["content"] == "hi \ufffd\ufffd there"
    assert "hi \ufffd\ufffd there" in stored_texts(home)


# Every place the command line takes an id, with ID where it goes.
ID_ARGUMENTS = {
    "export": ("export", "ID"),
    "memory rm": ("memory", "rm", "ID"),
    "memory edit": ("memory", "edit", "ID", "--text", "new"),
    "memory pin": ("memory", "pin", "ID"),
    "memory unpin": ("memory", "unpin", "ID"),
    "memory restore": ("memory", "restore", "ID"),
    "memory tag": ("memory", "tag", "ID", "fact"),
    "memory add --replaces": ("memory", "add", "new", "--replaces", "ID"),
    "send --conversation": ("send", "--conversation", "ID", "hi"),
    "context --conversation": ("context", "--conversation", "ID"),
    "--conversation summarize": ("--conversation", "ID", "summarize"),
    "ask-again": ("ask-again", "ID", "--without", "memory"),
    "replay": ("replay", "ID"),
    "keep-variant": ("keep-variant", "ID"),
    "variants": ("variants", "ID"),
}
NOT_IDS = {
    "negative": ("-3", "'-3' is not an id (a whole number from 1)"),
    "zero": ("0", "'0' is not an id (a whole number from 1)"),
    "not a number": ("12abc", "'12abc' is not an id (a whole number from 1)"),
    "past SQLite's 64 bits": (
        str(2**63),
        "'9223372036854775808' is too large for an id (the largest is 9223372036854775807)",
    ),
    "huge": (
        "1" + "0" * 30,
        "'1000000000000000000000000000000' is too large for an id "
        "(the largest is 9223372036854775807)",
    ),
    "thousands of digits": (
        "9" * 5000,
        f"'{'9' * 39}…' is too large for an id (the largest is 9223372036854775807)",
    ),
}


def with_id(command: str, value: str) -> list[str]:
    return [value if arg == "ID" else arg for arg in ID_ARGUMENTS[command]]


@pytest.mark.parametrize("bad", NOT_IDS, ids=str)
@pytest.mark.parametrize("command", ID_ARGUMENTS, ids=str)
def test_an_argument_that_is_no_id_is_one_line_naming_it(
    run: Run, command: str, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    value, said = NOT_IDS[bad]
    with pytest.raises(SystemExit) as exited:
        run(*with_id(command, value))
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert one_line(err).startswith("ctxchat")
    assert err.endswith(f": {said}\n"), err


@pytest.mark.parametrize("command", ID_ARGUMENTS, ids=str)
def test_the_largest_id_sqlite_holds_is_looked_up(run: Run, command: str) -> None:
    code, out, err = run(*with_id(command, str(2**63 - 1)))
    assert code == 2
    assert out == ""
    assert one_line(err).startswith("ctxchat: No "), err
    assert "9223372036854775807" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("export",), "ctxchat export: the following arguments are required: id"),
        (("memory", "rm", "1", "2"), "ctxchat: unrecognized arguments: 2"),
        (
            ("memory", "add", "x", "--importance", "many"),
            "ctxchat memory add: argument --importance: invalid int value: 'many'",
        ),
        (
            ("config", "chek"),
            "ctxchat config: argument ACTION: invalid choice: 'chek' "
            "(choose from 'init', 'show', 'path')",
        ),
        (
            ("export", "\x1b]0;title\x07\x9b2J"),
            "ctxchat export: argument id: '\\x1b]0;title\\x07\\x9b2J' is not an id "
            "(a whole number from 1)",
        ),
    ],
    ids=["missing", "extra", "not a number", "no such action", "control sequences"],
)
def test_a_command_line_mistake_is_one_line_not_the_usage(
    run: Run, args: tuple[str, ...], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        run(*args)
    assert exited.value.code == 2
    assert one_line(capsys.readouterr().err) == said + "\n"


def test_an_empty_reply_fails_with_one_line_and_exit_3(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    server.script("")
    code, out, err = run("send", "Say something")
    assert code == 3
    assert out == ""
    assert one_line(err).startswith("ctxchat: The model returned an empty reply")
    with sqlite3.connect(home / "data" / "ctxchat.db") as conn:
        rows = conn.execute("SELECT role, status FROM messages ORDER BY id").fetchall()
    assert rows == [("user", "complete"), ("assistant", "failed")]


def test_a_web_page_is_named_as_one(run: Run, server: ScriptedModelServer) -> None:
    server.fail_next(Fault.SERVER_ERROR, status=200, body="<html><body>Log in</body></html>")
    code, _, err = run("send", "Hello")
    assert code == 3
    assert one_line(err).startswith(
        "ctxchat: The server answered with a web page, not an OpenAI-compatible stream (text/html)."
    )


def test_a_refused_message_leaves_no_empty_conversation(
    run: Run, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run("send", "word " * 20_000)
    assert code == 2
    assert "over the budget" in one_line(err)
    monkeypatch.delenv("CTXCHAT_TEST_KEY")
    code, _, err = run("send", "Hello")
    assert code != 0
    one_line(err)
    assert run("conversations", "--json")[1] == "[]\n"
    assert server.requests == []


def test_the_chunk_timeout_setting_stops_a_stalled_reply_and_is_named(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text() + "[model]\nchunk_timeout = 0.5\n")
    server.fail_next(Fault.STALL, after=2, seconds=30)
    server.script("Once upon a time there was a stall.")
    code, out, err = run("send", "Tell me a story")
    assert code == 3
    assert out.startswith("Once")
    assert one_line(err) == (
        "ctxchat: The server sent nothing for 0.5 seconds, so the reply was stopped; the part "
        "received so far was kept. Raise chunk_timeout in the [model] config table.\n"
    )


def test_config_show_reports_an_unknown_theme_and_bad_keys_like_config_errors(
    run: Run, home: Path
) -> None:
    config = home / "config.toml"
    config.write_text('theme = "nrod"\n' + config.read_text() + '[keys]\n"mode.toggel" = "f9"\n')
    code, out, err = run("config", "show")
    assert code == 0
    expected = [
        f"{config}:1: theme: no theme called 'nrod'; did you mean \"nord\"?",
        f'{config}:15: keys."mode.toggel": no key binding has this id; did you mean "mode.toggle"?',
    ]
    assert json.loads(out)["warnings"] == expected
    assert err.splitlines() == [f"ctxchat: warning: {line}" for line in expected]


def test_a_key_a_request_cannot_carry_is_one_line_and_never_shown(
    run: Run, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Cyrillic "е" pasted into a key failed deep in the HTTP library, with a traceback."""
    monkeypatch.setenv("CTXCHAT_TEST_KEY", "sk-t\u0435st-key")
    code, out, err = run("send", "Hello")
    assert code != 0 and out == ""
    line = one_line(err)
    assert "$CTXCHAT_TEST_KEY has a character a request cannot carry" in line
    assert "t\u0435st" not in line and "Traceback" not in err
    assert server.requests == []
