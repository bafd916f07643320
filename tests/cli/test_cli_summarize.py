"""`ctxchat summarize`: the new version and what it lost as JSON, a reply cut at its limit,
and two processes that never fold the same turns twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from ctxchat.store import Store
from ctxchat.store.summary_jobs import JobKind
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.testing.server.script import Reply

from .pty_process import PtyProcess, Run


def chat(run: Run, server: ScriptedModelServer, turns: int = 5) -> None:
    server.default_reply = "reply"
    run("send", "--no-summarize", "Run the proxy on port 8771 and log to /var/log/proxy.log.")
    for i in range(turns - 1):
        run("send", "--no-summarize", f"question {i}")
    server.default_reply = None


def summarize_no_wait() -> subprocess.CompletedProcess[str]:
    """`ctxchat summarize --no-wait` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "ctxchat.cli.main", "summarize", "--no-wait"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )


def test_summarize_json_prints_the_version_and_what_it_lost(
    run: Run, server: ScriptedModelServer
) -> None:
    chat(run, server)
    server.script("The user set up a proxy and asked questions.")
    code, out, err = run("summarize", "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    version = result["version"]
    assert (version["version"], version["first_message_id"], version["last_message_id"]) == (
        1,
        1,
        6,
    )
    assert version["text"] == "The user set up a proxy and asked questions."
    assert (version["cut"], version["flagged"]) == (False, True)
    assert result["lost"] == [
        {
            "text": "/var/log/proxy.log",
            "kind": "path",
            "message_id": 1,
            "context": "Run the proxy on port 8771 and log to /var/log/proxy.log.",
        },
        {
            "text": "8771",
            "kind": "number",
            "message_id": 1,
            "context": "Run the proxy on port 8771 and log to /var/log/proxy.log.",
        },
    ]
    code, out, _ = run("summarize", "--json")
    assert json.loads(out) == {"conversation_id": 1, "version": None, "lost": []}


def test_a_reply_cut_at_its_limit_is_stored_cut_and_said(
    run: Run, server: ScriptedModelServer
) -> None:
    chat(run, server)
    server.script(
        Reply(
            "The user set up a proxy on port 8771. Logs go to /var/log/proxy.log. Then the",
            finish_reason="length",
        )
    )
    code, out, err = run("summarize")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("Summary v1 covers messages 1-6 (")
    assert lines[1].startswith("The model's reply was cut at the summary's limit (")
    assert lines[1].endswith(" tokens): it ends at its last whole sentence.")
    assert len(lines) == 2  # it lost nothing
    code, out, _ = run("context", "--json")
    summary = next(layer for layer in json.loads(out)["layers"] if layer["layer"] == "summary")
    assert summary["items"][0]["ref"] == "summary:v1"
    limit = server.requests[-2]["max_tokens"]
    assert isinstance(limit, int) and limit > 0


def test_send_does_not_fold_while_another_summary_runs(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    chat(run, server)
    with Store.open(home / "data" / "ctxchat.db") as store:
        store.summary_jobs.start_summary_job(1, JobKind.FOLD, first_message_id=1, last_message_id=4)
    server.default_reply = "long " * 1200  # long replies push old turns out of working memory
    notes = ""
    for i in range(7):
        code, _, err = run("send", f"one more {i}")
        assert code == 0
        notes += err
    assert "ctxchat: not summarized now: this process is summarizing messages 1-4, for" in notes
    assert not any(
        str(r["messages"][0]["content"]).startswith("You maintain") for r in server.requests
    )


def test_two_processes_never_fold_the_same_turns_twice(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    chat(run, server)
    held = threading.Event()
    server.fail_next(Fault.STALL, until=held)
    server.script("Summary from the first process.")
    asked = len(server.requests)
    first = subprocess.Popen(
        [sys.executable, "-m", "ctxchat.cli.main", "summarize", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert server.wait_for_requests(asked + 1, timeout=60)  # its request is held
        probes = len(server.other_requests)
        refused = summarize_no_wait()
        assert refused.returncode == 1
        assert refused.stderr.startswith(
            "ctxchat: This conversation is already being summarized: process "
            f"{first.pid} is summarizing messages 1-6, for "
        )
        # Refused before asking the server anything: a server that runs one request at a
        # time would not answer, or would stop the other's request for it.
        assert len(server.other_requests) == probes
        with PtyProcess(["summarize"]) as waiting:
            waiting.read_until(
                lambda out: f"waiting: process {first.pid} is summarizing".encode() in out
            )
            held.set()
            assert waiting.finish() == 0
            assert b"Nothing to summarize" in waiting.output
        out, err = first.communicate(timeout=60)
        assert first.returncode == 0, err
    finally:
        held.set()
        if first.poll() is None:
            first.kill()
        first.wait()
    assert json.loads(out)["version"]["text"] == "Summary from the first process."
    assert len(server.requests) == asked + 1  # the others asked the model nothing
    with Store.open(home / "data" / "ctxchat.db") as store:
        assert [v.text for v in store.summaries.summaries(1)] == ["Summary from the first process."]
        assert store.summary_jobs.summary_job(1) is None


F9 = b"\x1b[20~"


def test_summarize_waits_for_the_summary_the_app_makes_and_goes_on_once_cancelled(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    chat(run, server)
    held = threading.Event()
    server.fail_next(Fault.STALL, until=held)
    server.script("Summary from the app.")
    asked = len(server.requests)
    try:
        with PtyProcess([], columns=120, rows=30) as app:
            app.read_until(lambda out: b"Quit" in out)  # the footer: the app is up
            app.press(b"\x13", b"Summarize 6")  # ctrl+s: the preview
            app.write(b"\r")
            assert server.wait_for_requests(asked + 1, timeout=60)  # its request is held
            # The app shows what runs, for how long, and the key that cancels it.
            app.read_until(lambda out: "Summarizing 6 messages · ".encode() in out)
            app.read_until(lambda out: b"f9 cancels" in out)
            refused = summarize_no_wait()
            assert refused.returncode == 1
            assert refused.stderr.startswith(
                "ctxchat: This conversation is already being summarized: process "
                f"{app.process.pid} is summarizing messages 1-6, for "
            )
            server.script("Summary from the command.")
            with PtyProcess(["summarize"]) as waiting:
                waiting.read_until(
                    lambda out: f"waiting: process {app.process.pid} is summarizing".encode() in out
                )
                app.write(F9)  # the app stops its summary: the command's own goes on
                assert waiting.finish() == 0
                assert b"Summary v1 covers messages 1-6" in waiting.output
            assert app.quit() == 0
    finally:
        held.set()
    with Store.open(home / "data" / "ctxchat.db") as store:
        assert [v.text for v in store.summaries.summaries(1)] == ["Summary from the command."]
        assert store.summary_jobs.summary_job(1) is None
