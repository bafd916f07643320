"""`ctxchat context` with recall across conversations: an item found in another conversation
of the project names it (`ref` and `from` in the JSON, its title and day in the label)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from ctxchat.chat.semantic import SemanticRecall
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
    items = recall_items(run)
    # By meaning, the reply there ("Cedar it is.") comes too.
    item = next(i for i in items if i["ref"] == "conversation:1/message:1")
    assert item["from"] == {"conversation": 1, "title": title, "date": today}
    assert item["label"].startswith(f"from “{title}” ({today}): matched birdhouse")
    assert all(i["ref"].startswith("conversation:1/") for i in items)
    # Objective mode keeps them, as it keeps memory's facts.
    assert [i["ref"] for i in recall_items(run, "--mode", "objective")] == [i["ref"] for i in items]


PAID = "The quote from the roofer came to 4,200 euros, tiles and labour included."
ASKED_BY_MEANING = "How expensive was fixing the top of the house?"


def test_context_finds_by_meaning_in_another_conversation_it_embeds_first(
    run: Run, server: ScriptedModelServer
) -> None:
    """A command embeds the other conversations' messages that have no vector in the time it
    gives embedding, after its own conversation's: what shares no word is found there."""
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    server.script("Noted.", "Noted.")
    run("send", "--new", PAID)  # conversation 1
    run("send", "--new", "Remind me to water the plants.")  # conversation 2
    run("project", "create", "House")
    for conversation in ("1", "2"):
        run("project", "add", "House", "--conversation", conversation)

    code, out, err = run(
        "context", "--json", "--offline", "--conversation", "2", "--message", ASKED_BY_MEANING
    )

    assert code == 0, err
    plan = json.loads(out)
    layer = next(entry for entry in plan["layers"] if entry["layer"] == "recall")
    item = next(i for i in layer["items"] if i["ref"] == "conversation:1/message:1")
    assert "similar in meaning" in item["label"]
    assert item["from"]["conversation"] == 1
    assert not any("other conversations" in warning for warning in plan["warnings"])
