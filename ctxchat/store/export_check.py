"""An export checked against its format before anything is written: types, ranges, fields."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryKind
from ctxchat.core.plan import ContextPlan
from ctxchat.core.summary import SummaryStrategy
from ctxchat.store.records import ROLES

# The most problems one error names; the rest are counted.
SHOWN_PROBLEMS = 3
# SQLite's integers are 64-bit; timestamps must be dates a calendar can show (1970–9999).
_INT_RANGE = (-(2**63), 2**63 - 1)
_LATEST_TIME = 253_402_300_799.0

Check = Callable[[Any], str | None]
"""A value's problem as "expected …", or None when it is fine."""


def _integer(low: int = _INT_RANGE[0], high: int = _INT_RANGE[1]) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return "expected a whole number"
        if not low <= value <= high:
            return f"expected a whole number from {low} to {high}"
        return None

    return check


def _timestamp(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "expected a number (seconds since 1970)"
    if not (math.isfinite(value) and 0 <= value <= _LATEST_TIME):
        return "expected a time from 1970 to 9999, in seconds"
    return None


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return "expected text"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "expected text (it holds an unpaired surrogate)"
    return None


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) or value in (0, 1) else "expected true or false"


def _one_of(*allowed: str) -> Check:
    def check(value: Any) -> str | None:
        return None if value in allowed else f"expected one of {', '.join(allowed)}"

    return check


def _tags(value: Any) -> str | None:
    if not isinstance(value, list) or any(_text(tag) for tag in value):
        return "expected a list of text"
    return None


def _lost(value: Any) -> str | None:
    """A summary's loss report: a list of {text, kind, message_id, context}."""
    expected = "expected a list of {text, kind, message_id}"
    if not isinstance(value, list):
        return expected
    for item in value:
        if (
            not isinstance(item, dict)
            or _text(item.get("text"))
            or _one_of(*DetailKind)(item.get("kind"))
            or _ID(item.get("message_id"))
            or _text(item.get("context", ""))
        ):
            return expected
    return None


def _or_none(check: Check) -> Check:
    def maybe(value: Any) -> str | None:
        problem = None if value is None else check(value)
        return None if problem is None else f"{problem}, or null"

    return maybe


_ID = _integer(1)
_COUNT = _integer(0)

_CONVERSATION: dict[str, Check] = {
    "title": _or_none(_text),
    "model": _or_none(_text),
    "profile": _or_none(_text),
    "created_at": _timestamp,
    "updated_at": _timestamp,
    "active_summary_version": _or_none(_integer(1)),
}
_CONVERSATION_OPTIONAL: dict[str, Check] = {
    "chosen_profile": _or_none(_text),
    "chosen_model": _or_none(_text),
    "preset": _or_none(_text),
    "system_prompt": _or_none(_text),
    "project": _or_none(_text),
}
_MESSAGE: dict[str, Check] = {
    "id": _ID,
    "parent_id": _or_none(_ID),
    "role": _one_of(*ROLES),
    "content": _text,
    "reasoning": _text,
    "tokens": _COUNT,
    "exact": _flag,
    "encoding": _text,
    "model": _or_none(_text),
    "status": _one_of(*MessageStatus),
    "finish_reason": _or_none(_text),
    "error": _or_none(_text),
    "prompt_tokens": _or_none(_COUNT),
    "completion_tokens": _or_none(_COUNT),
    "cached_tokens": _or_none(_COUNT),
    "estimated_prompt_tokens": _or_none(_COUNT),
    "created_at": _timestamp,
    "updated_at": _timestamp,
}
_MESSAGE_OPTIONAL: dict[str, Check] = {
    "error_detail": _or_none(_text),
    "excluded": _flag,
    "billing": _or_none(_one_of("free", "priced")),
}
_SUMMARY: dict[str, Check] = {
    "version": _integer(1),
    "text": _text,
    "first_message_id": _ID,
    "last_message_id": _ID,
    "strategy": _one_of(*SummaryStrategy),
    "model": _or_none(_text),
    "tokens": _COUNT,
    "edited": _flag,
    "note": _text,
    "created_at": _timestamp,
}
_SUMMARY_OPTIONAL: dict[str, Check] = {
    "cut": _flag,
    "reviewed": _flag,
    "lost": _lost,
    "faults": _tags,
    "waiting": _flag,
}
_MEMORY: dict[str, Check] = {
    "id": _ID,
    "kind": _one_of(*MemoryKind),
    "text": _text,
    "key": _or_none(_text),
    "pinned": _flag,
    "importance": _integer(1, 10),
    "source": _text,
    "enabled": _flag,
    "tags": _tags,
    "created_at": _timestamp,
    "updated_at": _timestamp,
}


def _steps(value: Any) -> str | None:
    if not isinstance(value, list) or any(
        not isinstance(step, dict) or _text(step.get("text")) or _flag(step.get("done"))
        for step in value
    ):
        return "expected a list of steps, each with text and done"
    return None


def _parts(value: Any) -> str | None:
    if not isinstance(value, list) or any(
        not isinstance(part, list) or len(part) != 6 or any(_COUNT(number) for number in part)
        for part in value
    ):
        return "expected a list of parts, each six whole numbers"
    return None


_TASK: dict[str, Check] = {"goal": _text, "steps": _steps}
_ATTACHMENT: dict[str, Check] = {
    "id": _ID,
    "path": _text,
    "name": _text,
    "content": _text,
    "digest": _text,
    "size": _COUNT,
    "mtime": _timestamp,
    "tokens": _COUNT,
    "encoding": _text,
    "part_tokens": _integer(1),
    "parts": _parts,
    "attached_at": _timestamp,
    "read_at": _timestamp,
}


def _record(
    value: Any,
    path: str,
    fields: Mapping[str, Check],
    problems: list[str],
    optional: Mapping[str, Check] | None = None,
) -> None:
    if not isinstance(value, dict):
        problems.append(f"{path}: expected an object")
        return
    for name, check in fields.items():
        if name not in value:
            problems.append(f"{path}.{name}: missing")
        elif (problem := check(value[name])) is not None:
            problems.append(f"{path}.{name}: {problem}")
    for name, check in (optional or {}).items():
        if name in value and (problem := check(value[name])) is not None:
            problems.append(f"{path}.{name}: {problem}")


def _records(
    data: Mapping[str, Any],
    name: str,
    fields: Mapping[str, Check],
    problems: list[str],
    optional: Mapping[str, Check] | None = None,
) -> None:
    items = data.get(name)
    if not isinstance(items, list):
        problems.append(f"{name}: expected a list")
        return
    for index, item in enumerate(items):
        _record(item, f"{name}[{index}]", fields, problems, optional)


def _plans(data: Mapping[str, Any], problems: list[str]) -> None:
    plans = data.get("plans")
    if not isinstance(plans, list):
        problems.append("plans: expected a list")
        return
    for index, stored in enumerate(plans):
        path = f"plans[{index}]"
        if not isinstance(stored, dict):
            problems.append(f"{path}: expected an object")
            continue
        if (problem := _ID(stored.get("message_id"))) is not None:
            problems.append(f"{path}.message_id: {problem}")
        try:
            ContextPlan.from_dict(stored["plan"])
        except (KeyError, TypeError, ValueError, AttributeError):
            problems.append(f"{path}.plan: expected a context plan as ctxchat exports it")


def export_problems(data: Mapping[str, Any]) -> list[str]:
    """Every place where `data` departs from the export format, as "path: what was expected"."""
    problems: list[str] = []
    _record(
        data.get("conversation"), "conversation", _CONVERSATION, problems, _CONVERSATION_OPTIONAL
    )
    _records(data, "messages", _MESSAGE, problems, _MESSAGE_OPTIONAL)
    _records(data, "summaries", _SUMMARY, problems, _SUMMARY_OPTIONAL)
    _plans(data, problems)
    _records(data, "memory", _MEMORY, problems)
    # Absent from exports made before an entry could be switched off in one conversation.
    _records(data, "global_memory", _MEMORY, problems, {"off_here": _flag})
    # Absent from exports made before projects.
    if "project_memory" in data:
        _records(data, "project_memory", _MEMORY, problems, {"off_here": _flag})
    # Absent from exports made before conversations had tasks and attached files.
    if "task" in data:
        _record(data["task"], "task", _TASK, problems)
    if "attachments" in data:
        _records(data, "attachments", _ATTACHMENT, problems)
    if not problems:
        ids = [message["id"] for message in data["messages"]]
        if len(set(ids)) != len(ids):
            problems.append("messages: two messages have the same id")
    return problems


def describe_problems(problems: list[str]) -> str:
    """The first problems on one line, and how many more there are."""
    shown = "; ".join(problems[:SHOWN_PROBLEMS])
    more = len(problems) - SHOWN_PROBLEMS
    return shown + (f" (and {more} more)" if more > 0 else "")
