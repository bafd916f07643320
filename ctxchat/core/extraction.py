"""Fact extraction: the prompt that asks for typed memory entries, and parsing what comes back."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.core.task import (
    TASK_PROPOSAL_INSTRUCTIONS,
    TaskProposal,
    TaskState,
    read_task_proposal,
    render_task,
)
from ctxchat.core.task_request import task_request

EXTRACTION_SYSTEM_PROMPT = """\
You extract memory entries from a conversation between a user and an assistant.
Return only a JSON array. Each element is an object with:
  "kind": one of "fact", "constraint", "preference", "hypothesis"
  "text": one short, self-contained statement
  "importance": an integer from 1 (trivia) to 10 (essential)
  "message_id": the id of the message it came from, as shown in [brackets]
Kinds:
  fact: verified and stated as true (a decision made, a version in use, a name).
  constraint: a rule or limit the work must respect.
  preference: what a person likes, wants or believes — their taste, not a verified fact.
  hypothesis: an unverified guess or suspicion.
What a person merely believes or wants is a preference or a hypothesis, never a fact.
Skip small talk. Do not repeat entries listed as already known."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """One entry the model proposes; nothing enters memory until the user accepts it."""

    kind: MemoryKind
    text: str
    importance: int
    message_id: int | None
    matches_entry_id: int | None = None


@dataclass(frozen=True, slots=True)
class ExtractionResult:
    proposals: tuple[Proposal, ...]
    problems: tuple[str, ...]
    span: tuple[int, int] | None = None
    """The first and last id of the messages the model read: the source of what it found."""
    task_proposals: tuple[TaskProposal, ...] = ()
    """Changes to the conversation's task state, reviewed like the entries."""
    cut: bool = False
    """The output limit cut the model's reply: the proposals are the complete entries in it."""


def build_extraction_request(
    messages: Sequence[HistoryMessage],
    known: Sequence[MemoryEntry],
    task: TaskState | None = None,
    *,
    system_role: bool = True,
) -> list[dict[str, str]]:
    """The request asking the model for typed entries from `messages` (and, given the
    conversation's `task`, for changes to it); the instructions in the user message when
    `system_role` is False: see `task_request`."""
    transcript = "\n\n".join(f"[{m.id}] {m.role}: {m.content}" for m in messages)
    parts = [f"Conversation:\n{transcript}"]
    if known:
        listed = "\n".join(f"- ({e.kind.value}) {e.text}" for e in known)
        parts.append(f"Already known:\n{listed}")
    system = EXTRACTION_SYSTEM_PROMPT
    if task is not None:
        system += "\n" + TASK_PROPOSAL_INSTRUCTIONS
        steps = list(enumerate(task.items, 1))
        shown = "none yet" if task.empty else "\n" + render_task(task.goal, steps)
        parts.append(f"Current task: {shown}")
    parts.append("Return the JSON array now.")
    return task_request(system, "\n\n".join(parts), system_role=system_role)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_KIND_ALIASES = {"fact": "fact", "constraint": "constraint", "preference": "preference"}
_KIND_ALIASES |= {"hypothesis": "hypothesis", "belief": "preference", "guess": "hypothesis"}


def _candidates(text: str) -> list[Any]:
    """JSON values found in the reply: the whole text, a fenced block, or objects in it."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    for source in (fenced.group(1) if fenced else None, stripped):
        if not source:
            continue
        try:
            value = json.loads(source)
        except json.JSONDecodeError:
            start = source.find("[")
            if start >= 0:
                try:
                    value, _ = json.JSONDecoder().raw_decode(source[start:])
                except json.JSONDecodeError:
                    pass
                else:
                    return value if isinstance(value, list) else [value]
            continue
        if isinstance(value, dict):
            entries = value.get("entries") or value.get("facts") or value.get("items")
            return entries if isinstance(entries, list) else [value]
        return value if isinstance(value, list) else [value]
    # Partial or broken JSON: salvage every complete {...} object in the text.
    found: list[Any] = []
    decoder = json.JSONDecoder()
    index = stripped.find("{")
    while index >= 0:
        try:
            value, end = decoder.raw_decode(stripped[index:])
        except json.JSONDecodeError:
            index = stripped.find("{", index + 1)
            continue
        found.append(value)
        index = stripped.find("{", index + end)
    return found


def parse_proposals(
    text: str,
    known: Sequence[MemoryEntry] = (),
    valid_ids: Sequence[int] = (),
    task: TaskState | None = None,
    *,
    cut: bool = False,
) -> ExtractionResult:
    """Proposals from the model's reply, and a problem line for everything that was off.

    Elements with a "task" key are changes to the task state (checked against `task`).
    Never raises: malformed output yields what could be parsed plus the reasons. `cut` says
    the output limit cut the reply: its complete entries are proposed, and the cut is said.
    """
    problems: list[str] = []
    raw = _candidates(text)
    if not raw and not cut:
        problems.append("The model's reply held no JSON entries.")
    proposals: list[Proposal] = []
    task_proposals: list[TaskProposal] = []
    seen: set[str] = set()
    for number, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            problems.append(f"Entry {number} is not an object; skipped.")
            continue
        if "task" in item:
            source = item.get("message_id")
            found = read_task_proposal(
                item,
                task,
                source
                if isinstance(source, int) and (not valid_ids or source in valid_ids)
                else None,
            )
            if isinstance(found, str):
                problems.append(f"Entry {number} {found}; skipped.")
            elif found not in task_proposals:
                task_proposals.append(found)
            continue
        body = item.get("text")
        if not isinstance(body, str) or not body.strip():
            problems.append(f"Entry {number} has no text; skipped.")
            continue
        body = " ".join(body.split())
        kind_name = _KIND_ALIASES.get(str(item.get("kind", "")).strip().lower())
        if kind_name is None:
            # An unlabelled claim is the least trusted kind, never a fact.
            problems.append(f"Entry {number} has kind {item.get('kind')!r}; taken as a hypothesis.")
            kind_name = "hypothesis"
        importance = item.get("importance", 5)
        if not isinstance(importance, int | float) or isinstance(importance, bool):
            problems.append(f"Entry {number} has importance {importance!r}; using 5.")
            importance = 5
        importance = min(10, max(1, int(importance)))
        message_id = item.get("message_id")
        if not isinstance(message_id, int) or (valid_ids and message_id not in valid_ids):
            message_id = None
        key = body.casefold()
        if key in seen:
            continue
        seen.add(key)
        proposals.append(
            Proposal(MemoryKind(kind_name), body, importance, message_id, _match(body, known))
        )
    span = (min(valid_ids), max(valid_ids)) if valid_ids else None
    if cut:
        problems.insert(0, cut_problem(len(proposals)))
    return ExtractionResult(tuple(proposals), tuple(problems), span, tuple(task_proposals), cut)


def cut_problem(complete: int) -> str:
    """What a cut reply's review says: how many entries it held whole."""
    held = (
        "the 1 complete entry before the cut is"
        if complete == 1
        else (f"the {complete} complete entries before the cut are")
    )
    return f"The model's reply was cut off at its output limit; {held} offered, the rest was lost."


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.casefold()) if len(w) > 2}


def _match(text: str, known: Sequence[MemoryEntry]) -> int | None:
    """An existing entry the proposal restates or updates (most shared words, at least half)."""
    words = _words(text)
    best, best_score = None, 0.5
    for entry in known:
        other = _words(entry.text)
        if not words or not other:
            continue
        score = len(words & other) / min(len(words), len(other))
        if score > best_score:
            best, best_score = entry.id, score
    return best
