"""`ctxchat memory off|on`: a shared entry switched off for one conversation only."""

from __future__ import annotations

import json

import pytest

from ctxchat.testing.server import ScriptedModelServer

from .conftest import Run

SOIL = "The soil is heavy clay."


def memory_sent(server: ScriptedModelServer) -> str:
    """The memory message of the last request the server received ("" if none)."""
    return next(
        (m["content"] for m in server.requests[-1]["messages"] if "Memory curated" in m["content"]),
        "",
    )


def test_off_in_one_conversation_on_in_the_others(run: Run, server: ScriptedModelServer) -> None:
    server.script("ok", "ok", "ok", "ok")
    run("memory", "add", SOIL)
    run("send", "What should I plant?")
    assert SOIL in memory_sent(server)

    code, out, _ = run("memory", "off", "1", "--conversation", "1")
    assert (code, out) == (0, "Memory entry 1 is switched off for conversation 1.\n")
    code, out, _ = run("memory", "list")
    assert "switched off for this conversation" in out
    code, out, _ = run("context", "--json", "--conversation", "1")
    memory = next(layer for layer in json.loads(out)["layers"] if layer["layer"] == "memory")
    assert [(o["ref"], o["detail"]) for o in memory["left_out"]] == [
        ("memory:1", "switched off for this conversation")
    ]
    run("send", "--conversation", "1", "And now?")
    assert SOIL not in memory_sent(server)

    run("send", "--new", "A new garden: what soil?")
    assert SOIL in memory_sent(server)
    code, out, _ = run("memory", "list", "--json", "--conversation", "2")
    (entry,) = json.loads(out)
    assert (entry["enabled"], entry["off_in"]) == (True, [1])
    code, out, _ = run("memory", "list")  # the last conversation used: on there
    assert "switched off" not in out

    code, out, _ = run("memory", "on", "1", "--conversation", "1", "--json")
    assert (code, json.loads(out)["off_in"]) == (0, [])
    run("send", "--conversation", "1", "Back in the garden.")
    assert SOIL in memory_sent(server)


def test_off_refuses_in_one_line(run: Run, server: ScriptedModelServer) -> None:
    run("memory", "add", SOIL)
    code, out, err = run("memory", "off", "1")
    assert (code, out) == (2, "")
    assert err == "ctxchat: there is no conversation yet: start one with `ctxchat send --new`\n"
    server.script("ok")
    run("send", "Hello")
    run("memory", "add", "Tomatoes by the wall.", "--scope", "conversation")
    code, _, err = run("memory", "off", "2")
    assert code != 0
    assert err == ("ctxchat: Memory entry 2 belongs to conversation 1 alone: exclude it instead.\n")
    code, _, err = run("memory", "off", "9")
    assert code != 0 and err.count("\n") == 1 and "9" in err


CLAY = "The allotment soil is clay."


def test_project_entries_reach_its_conversations_and_no_other(
    run: Run, server: ScriptedModelServer
) -> None:
    server.script(*["ok"] * 5)
    run("send", "--new", "Beds")  # 1
    run("send", "--new", "Pond")  # 2
    run("send", "--new", "Trip to Porto")  # 3
    assert run("project", "create", "Allotment")[1] == "Created project “Allotment”.\n"
    code, _, err = run("project", "create", "allotment")
    assert (code, err) == (2, "ctxchat: There is already a project named “allotment”.\n")
    for conversation in ("1", "2"):
        code, out, _ = run("project", "add", "Allotment", "--conversation", conversation)
        assert out == f"Conversation {conversation} is in project “Allotment”.\n"
    code, out, _ = run("memory", "add", CLAY, "--project", "Allotment")
    assert out == "Added memory entry 1 (fact, project Allotment).\n"
    code, _, err = run("memory", "add", "x", "--project", "Orchard")
    assert (code, err) == (2, "ctxchat: There is no project named “Orchard”.\n")

    run("send", "--conversation", "2", "What grows in clay?")
    assert CLAY in memory_sent(server)
    run("send", "--conversation", "3", "Where do we fly?")
    assert CLAY not in memory_sent(server)

    code, out, _ = run("conversations", "--json")
    assert {c["id"]: c["project"] for c in json.loads(out)} == {
        1: "Allotment",
        2: "Allotment",
        3: None,
    }
    code, out, _ = run("project", "list", "--json")
    assert [(p["name"], p["conversations"], p["entries"]) for p in json.loads(out)] == [
        ("Allotment", 2, 1)
    ]
    code, out, _ = run("memory", "list", "--json", "--conversation", "1")
    assert [(e["scope"], e["project"]) for e in json.loads(out)] == [("project", "Allotment")]

    assert run("project", "remove", "--conversation", "2")[1] == (
        "Conversation 2 is in no project.\n"
    )
    run("send", "--conversation", "2", "And now?")
    assert CLAY not in memory_sent(server)


def test_deleting_a_project_asks_what_becomes_of_its_entries(
    run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    run("project", "create", "Allotment")
    run("memory", "add", CLAY, "--project", "Allotment")
    with pytest.raises(SystemExit) as refused:
        run("project", "delete", "Allotment")
    assert refused.value.code == 2
    assert capsys.readouterr().err == (
        "ctxchat project delete: the following arguments are required: --entries\n"
    )
    _, out, _ = run("project", "delete", "Allotment", "--entries", "global")
    assert out == (
        "Deleted project “Allotment”: its 0 conversations are kept, its 1 entry made global.\n"
    )
    _, out, _ = run("memory", "list", "--json", "--all")
    assert [(e["text"], e["scope"]) for e in json.loads(out)] == [(CLAY, "global")]


def test_tag_global_takes_an_entry_out_of_its_project(run: Run) -> None:
    run("project", "create", "Allotment")
    run("memory", "add", CLAY, "--project", "Allotment")
    _, out, _ = run("memory", "tag", "1", "--scope", "global")
    assert out == "Memory entry 1 is now fact, global.\n"
    _, out, _ = run("memory", "list", "--json", "--all")
    assert [(e["scope"], e["project"]) for e in json.loads(out)] == [("global", None)]
