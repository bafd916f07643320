"""Commands never wait minutes for embeddings: they plan with what is embedded and say so."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.store import Store

Run = Callable[..., tuple[int, str, str]]

NOT_EMBEDDED = "messages are not embedded yet"


def imported(home: Path, count: int) -> None:
    """A conversation of `count` long messages, none embedded (as an import leaves it)."""
    if not SemanticRecall.possible():
        pytest.skip("the embeddings extra is not installed")
    line = "We walked along the river and talked about the garden, the bees and the weather. "
    with Store.open(home / "data" / "ctxchat.db") as store:
        conversation = store.conversations.create_conversation("imported").id
        with store.transaction():
            for index in range(count):
                role = "user" if index % 2 == 0 else "assistant"
                text = f"Message {index}. " + line * 8
                store.messages.add_message(
                    conversation, role, text, tokens=150, exact=False, encoding="e"
                )


def test_a_long_unembedded_history_is_planned_at_once_with_a_note(run: Run, home: Path) -> None:
    # Minutes of embedding: a command embeds about a second's worth and plans.
    imported(home, 1_500)
    code, out, err = run("context", "--json", "--message", "What about the bees?")
    assert code == 0
    assert NOT_EMBEDDED in err
    assert "--embed-all waits for all" in err
    (note,) = [w for w in json.loads(out)["warnings"] if "not embedded yet" in w]
    assert note.startswith("Recall by meaning searched ")
    assert "of 1,496 earlier messages" in note  # all but the newest four (min_recent)


def test_embed_all_waits_for_every_message(run: Run, home: Path) -> None:
    imported(home, 40)
    code, out, err = run("context", "--json", "--embed-all", "--message", "What about the bees?")
    assert code == 0
    assert NOT_EMBEDDED not in err
    assert not [w for w in json.loads(out)["warnings"] if "not embedded yet" in w]
