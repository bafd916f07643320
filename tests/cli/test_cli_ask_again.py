"""`ctxchat ask-again`, `replay` and `keep-variant` against the scripted server over HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ctxchat.store import Store
from ctxchat.testing.server import Fault, ScriptedModelServer

Run = Callable[..., tuple[int, str, str]]


def a_reply(run: Run, server: ScriptedModelServer) -> int:
    """A conversation with two memory entries and one reply; the reply's id."""
    run("memory", "add", "The database is SQLite.", "--key", "db")
    run("memory", "add", "Likes short answers.", "--kind", "preference")
    server.script("SQLite, as you told me.")
    code, out, _ = run("send", "--json", "Which database do we use?")
    assert code == 0
    reply_id: int = json.loads(out)["reply"]["id"]
    return reply_id


def test_ask_again_without_a_memory_entry_streams_and_stores_a_variant(
    run: Run, server: ScriptedModelServer
) -> None:
    reply_id = a_reply(run, server)
    server.script("I do not know.")
    code, out, err = run("ask-again", str(reply_id), "--without", "memory:1")
    assert (code, out) == (0, "I do not know.\n")
    assert f"stored as variant 1 of reply {reply_id} (without memory:1)" in err
    assert "SQLite" not in server.requests[-1]["messages"][1]["content"]

    # The reply is unchanged; the variant is in the export.
    code, out, _ = run("export", "1", "--format", "json")
    exported = json.loads(out)
    assert exported["messages"][-1]["content"] == "SQLite, as you told me."
    (variant,) = exported["variants"]
    assert (variant["content"], variant["change"]) == ("I do not know.", "without memory:1")


def test_ask_again_json_has_the_variant_its_plan_and_the_request_diff(
    run: Run, server: ScriptedModelServer
) -> None:
    reply_id = a_reply(run, server)
    server.script("SQLite.")
    code, out, _ = run(
        "ask-again", str(reply_id), "--without", "summary", "--mode", "objective", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["change"] == "without summary; in objective mode"
    assert data["variant"]["content"] == "SQLite."
    assert data["plan"]["mode"] == "objective"
    assert data["plan"]["request"]["body"] == server.requests[-1]
    assert any("Likes short answers." in line for line in data["diff"] if line.startswith("-"))
    assert "sk-cli-secret" not in out


def test_replay_resends_the_stored_request_and_keep_variant_swaps(
    run: Run, server: ScriptedModelServer
) -> None:
    reply_id = a_reply(run, server)
    sent = dict(server.requests[-1])
    server.script("Replayed answer.")
    code, out, _ = run("replay", str(reply_id))
    assert (code, out) == (0, "Replayed answer.\n")
    assert server.requests[-1] == sent

    code, out, _ = run("keep-variant", "1")
    assert code == 0 and f"Reply {reply_id} is now variant 1's answer" in out
    code, out, _ = run("export", "1", "--format", "json")
    exported = json.loads(out)
    assert exported["messages"][-1]["content"] == "Replayed answer."
    assert exported["variants"][0]["content"] == "SQLite, as you told me."


def test_bad_requests_exit_2_with_one_line(run: Run, server: ScriptedModelServer) -> None:
    reply_id = a_reply(run, server)
    asked = len(server.requests)
    for args, message in (
        (("ask-again", str(reply_id), "--without", "working"), "cannot leave out 'working'"),
        (("ask-again", str(reply_id), "--without", "memory:7"), "memory:7 is not in this reply"),
        (("ask-again", str(reply_id - 1)), "is not a reply"),
        (("replay", "999"), "999"),
        (("keep-variant", "5"), "5"),
    ):
        code, _out, err = run(*args)
        assert code == 2, args
        assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert len(server.requests) == asked


def test_a_failing_server_exits_3_and_keeps_the_failed_variant(
    run: Run, server: ScriptedModelServer
) -> None:
    reply_id = a_reply(run, server)
    server.fail_next(Fault.SERVER_ERROR)
    code, _out, err = run("ask-again", str(reply_id), "--without", "memory", "--json")
    assert code == 3
    assert "stored as variant 1" in err


def test_variants_lists_what_changed_model_tokens_and_when(
    run: Run, server: ScriptedModelServer
) -> None:
    reply_id = a_reply(run, server)
    code, out, _ = run("variants", str(reply_id))
    assert (code, out) == (0, f"Reply {reply_id} has no variants.\n")
    server.script("I do not know.")
    run("ask-again", str(reply_id), "--without", "memory:1")
    code, out, _ = run("variants", str(reply_id))
    assert code == 0
    (line,) = out.splitlines()
    assert line.split()[0] == "1" and "gpt-4o" in line and line.endswith("without memory:1")
    code, out, _ = run("variants", str(reply_id), "--json")
    (variant,) = json.loads(out)["variants"]
    assert (variant["id"], variant["content"]) == (1, "I do not know.")
    code, _, err = run("variants", "999")
    assert code != 0 and len(err.strip().splitlines()) == 1


def choose(home: Path, profile: str | None, model: str | None) -> None:
    """What F4 stores for the first conversation."""
    with Store.open(home / "data" / "ctxchat.db") as store:
        store.conversations.choose_model(1, profile, model)


def test_ask_again_and_replay_use_the_model_chosen_for_the_conversation(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    reply_id = a_reply(run, server)
    sent = dict(server.requests[-1])
    choose(home, "test", "gpt-4o-mini")

    server.script("From the chosen model.")
    code, _out, err = run("ask-again", str(reply_id), "--without", "memory:1")
    assert code == 0
    assert server.requests[-1]["model"] == "gpt-4o-mini"
    assert "(without memory:1; to model gpt-4o-mini)" in err

    server.script("Replayed by the chosen model.")
    code, _out, err = run("replay", str(reply_id))
    assert code == 0
    assert server.requests[-1] == {**sent, "model": "gpt-4o-mini"}
    assert "(replay of the stored request; to model gpt-4o-mini)" in err

    # A flag says otherwise.
    server.script("From the reply's model.")
    assert run("replay", str(reply_id), "--model", "gpt-4o")[0] == 0
    assert server.requests[-1] == sent


def test_the_profile_chosen_for_the_conversation_is_asked_on_its_own_server(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    reply_id = a_reply(run, server)
    with ScriptedModelServer(models=["gemma-3-270m"]) as local:
        with (home / "config.toml").open("a", encoding="utf-8") as config:
            config.write(
                f'[profiles.local]\nbase_url = "{local.base_url}"\nmodel = "gemma-3-270m"\n'
                "context_window = 8000\n"
            )
        choose(home, "local", None)
        local.script("From the local server.")
        code, out, err = run("ask-again", str(reply_id), "--without", "memory:1")
        assert code == 0, err
        assert out == "From the local server.\n"
        assert local.requests[-1]["model"] == "gemma-3-270m"

        # --profile names the one to ask: the conversation's choice does not apply.
        asked = len(local.requests)
        server.script("From the configured server.")
        code, out, _ = run("ask-again", str(reply_id), "--without", "memory:1", "--profile", "test")
        assert (code, out) == (0, "From the configured server.\n")
        assert server.requests[-1]["model"] == "gpt-4o"
        assert len(local.requests) == asked
