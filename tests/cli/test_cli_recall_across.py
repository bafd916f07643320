"""`ctxchat context` with recall across conversations: an item found in another conversation
of the project names it (`ref` and `from` in the JSON, its title and day in the label)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ctxchat.testing.server import ScriptedModelServer

from .conftest import Run

FACT = "For the birdhouse we settled on cedar planks, 19 mm thick, and brass screws."
QUESTION = "Which wood did we pick for the birdhouse?"


def recall_items(run: Run, *args: str) -> list[dict[str, Any]]:
    code, out, err = run(
        "context", "--json", "--offline", "--conversation", "2", "--message", QUESTION, *args
    )
    assert code == 0, err
    layer = next(entry for entry in json.loads(out)["layers"] if entry["layer"] == "recall")
    items: list[dict[str, Any]] = layer["items"]
    return items


def test_context_names_the_conversation_a_recalled_message_comes_from(
    run: Run, server: ScriptedModelServer
) -> None:
    server.script("Cedar it is.", "Eggs, flour.")
    run("send", "--new", FACT)  # conversation 1, message 1
    run("send", "--new", "Start a shopping list.")  # conversation 2
    today = datetime.now().astimezone().date().isoformat()
    assert recall_items(run) == []  # in no project: only the conversation itself

    run("project", "create", "Garden")
    for conversation in ("1", "2"):
        run("project", "add", "Garden", "--conversation", conversation)
    _code, out, _ = run("conversations", "--json")
    title = next(c["title"] for c in json.loads(out) if c["id"] == 1)
    assert title.startswith("For the birdhouse")  # the first message's start
    (item,) = recall_items(run)
    assert item["ref"] == "conversation:1/message:1"
    assert item["from"] == {"conversation": 1, "title": title, "date": today}
    assert item["label"].startswith(f"from “{title}” ({today}): matched birdhouse")
    # Objective mode keeps it, as it keeps memory's facts.
    assert [i["ref"] for i in recall_items(run, "--mode", "objective")] == [item["ref"]]
