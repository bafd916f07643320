"""An automatic summary made by `ctxchat send` that the check finds wrong (it lost details,
repeats the transcript or its own instructions, invents numbers and names) is never put in
force silently: it waits for review, or, where the user accepts automatic summaries as they
come, every plan says it was not reviewed and what it lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxchat.testing.server import ScriptedModelServer

from .conftest import Run

SUMMARIZER = "You maintain the running summary"
QUESTIONS = [
    "Our supplier in Rotterdam is Van Dijk Logistics; they ship on Mondays.",
    "Marta Kowalski approves every order above 5,000 euros.",
    "The warehouse in Gdansk holds 340 pallets of the blue model.",
    "Can the Gdansk warehouse take the Rotterdam shipments too?",
    "What does Marta need for the approval?",
    "And when is the next shipment?",
]
NONSENSE = (
    "[user] Our supplier ships on Mondays. "
    "They ordered a 200-piece combo from Zorblax Industries. Write the summary."
)
"""Echoes the transcript's form and its instructions, invents a number and a name, and
loses the supplier's names (the first question and its reply are folded)."""


def answer(body: dict[str, Any]) -> str:
    """Nonsense for the summarizer; long replies otherwise, so old turns leave working
    memory and `send` folds them."""
    messages = body["messages"]
    if str(messages[0]["content"]).startswith(SUMMARIZER):
        return NONSENSE
    return "Noted. " + "filler " * 1200


def chat(run: Run) -> list[str]:
    """Send every question; what `send` said on standard error each time."""
    notes = []
    for question in QUESTIONS:
        code, _out, err = run("send", question)
        assert code == 0, err
        notes.append(err)
    return notes


def summarizer_requests(server: ScriptedModelServer) -> list[Any]:
    return [r for r in server.requests if str(r["messages"][0]["content"]).startswith(SUMMARIZER)]


def accept_as_they_come(home: Path) -> None:
    """`[summary] accept_unreviewed = true` in the config: doubtful summaries go into force."""
    config = home / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + "accept_unreviewed = true\n", encoding="utf-8"
    )


def context(run: Run) -> dict[str, Any]:
    code, out, err = run("context", "--json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_a_nonsense_automatic_summary_waits_for_review_and_context_says_so(
    run: Run, server: ScriptedModelServer
) -> None:
    server.default_reply = answer
    notes = chat(run)
    held = [n for n in notes if "waits for your review" in n]
    assert held, notes
    assert "into summary" not in "".join(notes)  # nothing was folded into force
    # One summary made, then none while it waits: each would fold the same turns.
    assert len(summarizer_requests(server)) == 1

    data = context(run)
    summary = next(layer for layer in data["layers"] if layer["layer"] == "summary")
    assert summary["items"] == []  # not in force: the turns go as they were
    waiting = [w for w in data["warnings"] if w.startswith("Summary v1 waits for your review")]
    assert len(waiting) == 1
    said = waiting[0]
    assert "repeats its own instructions (“Write the summary.”)" in said
    assert "repeats the transcript" in said
    assert "states what the folded turns do not hold: “200”, “Zorblax Industries”" in said
    assert "it lost 2 details (name “Rotterdam”, name “Dijk Logistics”)" in said
    assert summary["notes"] == [said]
    sent = [m["content"] for m in data["messages"]]
    assert not any("Zorblax" in text for text in sent)  # the model never reads it


def test_accepted_as_they_come_the_plan_says_it_was_not_reviewed_and_what_it_lost(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    accept_as_they_come(home)
    server.default_reply = answer
    notes = chat(run)
    assert any("into summary v1" in n for n in notes)

    data = context(run)
    summary = next(layer for layer in data["layers"] if layer["layer"] == "summary")
    assert summary["items"][0]["ref"] == "summary:v1"
    said = [w for w in data["warnings"] if w.startswith("The summary in force (v1) was not")]
    assert len(said) == 1
    assert "it lost " in said[0] and "repeats its own instructions" in said[0]
    assert summary["notes"] == said


def test_a_held_summary_is_reviewed_from_the_shell_accepted_or_rejected(
    run: Run, server: ScriptedModelServer
) -> None:
    server.default_reply = answer
    notes = chat(run)
    assert any("`ctxchat summary`" in n for n in notes if "waits for your review" in n)

    code, out, err = run("summary")
    assert code == 0, err
    assert out.startswith("Held for your review, not in force: summary v1, messages ")
    assert "Zorblax Industries" in out  # its text, to read before deciding
    assert "Its check: it lost 2 details (name “Rotterdam”, name “Dijk Logistics”)" in out
    assert "`ctxchat summary accept` puts it in force; `reject` deletes it." in out

    code, out, err = run("summary", "reject")
    assert code == 0, err
    assert out.startswith("Summary v1 is deleted;")
    data = context(run)
    assert not any("waits for your review" in w for w in data["warnings"])
    summary = next(layer for layer in data["layers"] if layer["layer"] == "summary")
    assert summary["items"] == []
    code, _out, err = run("summary", "accept")
    assert code == 2 and "No summary waits for review" in err

    # The next turn folds them again; this time the held one is accepted.
    code, _out, err = run("send", "One more question about the pallets.")
    assert code == 0 and "waits for your review" in err
    code, out, err = run("summary", "accept", "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["done"].endswith("is in force.")
    assert shown["held"] is None
    assert shown["in_force"]["version"]["waiting"] is False
    data = context(run)
    summary = next(layer for layer in data["layers"] if layer["layer"] == "summary")
    assert summary["items"][0]["ref"] == f"summary:v{shown['in_force']['version']['version']}"
    assert not any("waits for your review" in w for w in data["warnings"])


def test_a_summary_in_force_nobody_reviewed_is_kept_from_the_shell(
    run: Run, server: ScriptedModelServer, home: Path
) -> None:
    accept_as_they_come(home)
    server.default_reply = answer
    chat(run)
    code, out, err = run("summary")
    assert code == 0, err
    assert out.startswith("In force: summary v1")
    assert "`ctxchat summary keep` keeps it as it is" in out

    code, out, err = run("summary", "keep")
    assert code == 0, err
    assert out.startswith("Summary v1 is kept as it is")
    data = context(run)
    assert not any(w.startswith("The summary in force (v1) was not") for w in data["warnings"])
    code, _out, err = run("summary", "keep")
    assert code == 2 and "nothing to review" in err
