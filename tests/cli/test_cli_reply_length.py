"""A reply's length in tokens, in `send --json` and the variants list: the server's own count
where it reported one (`usage.completion_tokens`), else ctxchat's, and whose count it is."""

from __future__ import annotations

import json
from collections.abc import Callable

from ctxchat.testing.server import ScriptedModelServer

Run = Callable[..., tuple[int, str, str]]

# The scripted server counts words and marks (7 here); tiktoken splits "Tokenization" in two.
REPLY = "Hello, world! Tokenization matters."


def stored_tokens(run: Run) -> int:
    """ctxchat's own count of the newest reply, as stored (from the JSON export)."""
    code, out, _ = run("export", "1", "--format", "json")
    assert code == 0
    tokens: int = json.loads(out)["messages"][-1]["tokens"]
    return tokens


def test_the_servers_count_is_the_replys_length_where_it_reported_one(
    run: Run, server: ScriptedModelServer
) -> None:
    server.script(REPLY)
    code, out, _ = run("send", "--json", "Say hello.")
    assert code == 0
    data = json.loads(out)
    assert data["usage"]["completion_tokens"] == 7
    assert data["reply"]["length"] == {"tokens": 7, "counted_by": "server"}
    assert stored_tokens(run) != 7  # ctxchat's count, which plans keep using, differs


def test_ctxchats_count_is_the_replys_length_where_the_server_reported_none(
    run: Run, server: ScriptedModelServer
) -> None:
    server.ignore_stream_options = True  # no usage chunk, as llama-cpp-python streams
    server.script(REPLY)
    code, out, _ = run("send", "--json", "Say hello.")
    assert code == 0
    data = json.loads(out)
    assert data["usage"]["completion_tokens"] is None
    assert data["reply"]["length"] == {"tokens": stored_tokens(run), "counted_by": "ctxchat"}


def test_variants_are_listed_with_the_same_count(run: Run, server: ScriptedModelServer) -> None:
    server.script("First.")
    code, out, _ = run("send", "--json", "Say hello.")
    reply_id = json.loads(out)["reply"]["id"]
    server.script(REPLY)
    code, out, _ = run("replay", str(reply_id), "--json")
    assert code == 0
    assert json.loads(out)["variant"]["length"] == {"tokens": 7, "counted_by": "server"}
    code, out, _ = run("variants", str(reply_id))
    assert code == 0
    assert "  7 tokens (server)  complete  " in out
    code, out, _ = run("variants", str(reply_id), "--json")
    assert json.loads(out)["variants"][0]["length"] == {"tokens": 7, "counted_by": "server"}
