"""What differs between two request bodies: every key besides the messages (sampling,
max_tokens, model, stop, anything else) and which messages changed, were added or went."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

NOT_SENT = "not sent"
"""How a key one of the bodies does not have is said."""


@dataclass(frozen=True, slots=True)
class KeyChange:
    """One key of the body (not `messages`) whose value differs: before and after, as JSON
    (`NOT_SENT` where the body has no such key)."""

    key: str
    before: str
    after: str

    def words(self) -> str:
        return f"{self.key}: {self.before} → {self.after}"


@dataclass(frozen=True, slots=True)
class MessageChanges:
    """Which messages differ, by their place (1-based) in the newer body, with its role."""

    changed: tuple[tuple[int, str], ...] = ()
    added: tuple[tuple[int, str], ...] = ()
    removed: int = 0

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed)

    def words(self) -> str:
        parts = []
        if self.changed:
            parts.append("changed " + ", ".join(f"#{i} {role}" for i, role in self.changed))
        if self.added:
            parts.append("added " + ", ".join(f"#{i} {role}" for i, role in self.added))
        if self.removed:
            parts.append(f"{self.removed} fewer at the end")
        return "messages: " + "; ".join(parts) if parts else "messages: the same"


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return f"{value:,}"
    return json.dumps(value, ensure_ascii=False)


def key_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[KeyChange]:
    """Every key but `messages` whose value differs, in the newer body's order, then the
    keys only the older one had."""
    keys = [k for k in after if k != "messages"]
    keys += [k for k in before if k != "messages" and k not in after]
    changes = []
    for key in keys:
        old, new = before.get(key, _MISSING), after.get(key, _MISSING)
        if old != new:
            changes.append(
                KeyChange(
                    key,
                    NOT_SENT if old is _MISSING else _shown(old),
                    NOT_SENT if new is _MISSING else _shown(new),
                )
            )
    return changes


def message_changes(
    before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]
) -> MessageChanges:
    """The messages that differ place by place (a message whose role or content changed),
    those the newer body adds at the end, and how many fewer it has."""
    changed = tuple(
        (index, str(new.get("role", "?")))
        for index, (old, new) in enumerate(zip(before, after, strict=False), start=1)
        if old != new
    )
    added = tuple(
        (index, str(message.get("role", "?")))
        for index, message in enumerate(after[len(before) :], start=len(before) + 1)
    )
    return MessageChanges(changed, added, max(0, len(before) - len(after)))


def _messages(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    return [m for m in messages if isinstance(m, Mapping)]


def body_changes(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[list[KeyChange], MessageChanges]:
    """What differs from `before` to `after`: the keys, then the messages."""
    return key_changes(before, after), message_changes(_messages(before), _messages(after))


class _Missing:
    def __repr__(self) -> str:
        return NOT_SENT


_MISSING: Any = _Missing()
