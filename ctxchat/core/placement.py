"""Where system content goes: some chat templates drop system messages, so the system
prompt, memory, summary, task, files and recall move into the opening of the first user
message, under a heading of their own.

The plan keeps what each moved message was (`PlanMessage.parts`): the layers still own
their items and tokens, the request holds exactly what is sent, and a plan can be taken
apart again (`unplaced`) to be edited and placed once more (ask again without a layer).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from enum import StrEnum

from ctxchat.core.budget import Layer
from ctxchat.core.plan import (
    ContextPlan,
    LayerPlan,
    PlanMessage,
    PlanStatus,
    SentMessage,
    SystemPlacement,
)
from ctxchat.core.tokens import TokenCounter, count_message

__all__ = [
    "CONTEXT_CLOSING",
    "CONTEXT_OPENING",
    "FRAME",
    "ContextFrame",
    "PlacementChoice",
    "place_system_content",
    "placed_like",
    "unplaced",
]

CONTEXT_OPENING = "Context:"
"""The heading over the moved context."""
CONTEXT_CLOSING = "Message:"
"""The heading between the context and the user's message (none when no message follows)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ContextFrame:
    """The words around the moved context: `opening` before it, `closing` between it and
    the user's message, `alone_closing` after it when no user message follows."""

    opening: str
    closing: str
    alone_closing: str

    def framed(self, contents: Sequence[str], message: str | None) -> str:
        """`contents` framed, then `message` (None: the context stands alone)."""
        head = "\n\n".join(part for part in (self.opening, *contents) if part)
        closing = self.alone_closing if message is None else self.closing
        text = f"{head}\n{closing}" if closing else head
        return text if message is None else f"{text}\n\n{message}"


# Two short headings: a small model uses the context they frame more often than with other
# frames, at a few tokens (the measurements: bench/NOTES.md). The "Message:" line keeps the
# user's words apart from the context.
FRAME = ContextFrame(CONTEXT_OPENING, f"\n{CONTEXT_CLOSING}", "")
"""How moved context is framed (a blank line before the message's heading)."""


class PlacementChoice(StrEnum):
    """The `[context] system_placement` setting."""

    AUTO = "auto"
    """Into the first user message when the server's chat template drops system messages."""
    SYSTEM = "system"
    """Always as system messages."""
    USER = "user"
    """Always at the start of the first user message."""


WHY_DROPPED = "the server's chat template drops system messages"


def place_system_content(
    plan: ContextPlan, choice: PlacementChoice, *, drops_system: bool, counter: TokenCounter
) -> ContextPlan:
    """`plan` with its system messages where `choice` puts them.

    "auto" moves them into the first user message when the server's template drops system
    messages (`drops_system`); "user" always does; "system" never does, and on such a
    server marks the layers as not reaching the model.
    """
    carried = [m for m in plan.messages if m.role == "system"]
    if plan.status is PlanStatus.OVER_BUDGET or not carried:
        return plan
    forced = choice is PlacementChoice.USER
    if forced or (choice is PlacementChoice.AUTO and drops_system):
        return _moved(plan, carried, counter, forced=forced)
    if drops_system:
        note = (
            f"not reaching the model: {WHY_DROPPED} (set [context] system_placement = "
            '"auto" to send it at the start of the first user message)'
        )
        return dataclasses.replace(
            plan,
            system_placement=SystemPlacement.DROPPED,
            layers=_with_layer_text(plan.layers, carried, note=note),
        )
    return plan


def unplaced(plan: ContextPlan) -> ContextPlan:
    """`plan` with moved system content back in system messages (to be edited)."""
    if plan.system_placement is not SystemPlacement.FIRST_USER:
        return plan
    messages: list[SentMessage] = []
    extra = 0
    first_layer: Layer | None = None
    for message in plan.messages:
        parts = getattr(message, "parts", ())
        if not parts:
            messages.append(message)
            continue
        extra += message.tokens - sum(part.tokens for part in parts)
        first_layer = parts[0].layer
        messages.extend(part for part in parts if part.ref != _ALONE)
    layers = tuple(
        dataclasses.replace(
            lp,
            tokens=lp.tokens - (extra if lp.layer is first_layer else 0),
            hints=tuple(h for h in lp.hints if not h.startswith(_HINT_START)),
        )
        for lp in plan.layers
    )
    return dataclasses.replace(
        plan,
        messages=tuple(messages),
        layers=layers,
        tokens=plan.tokens - extra,
        system_placement=SystemPlacement.SYSTEM,
    )


def placed_like(original: ContextPlan, edited: ContextPlan, counter: TokenCounter) -> ContextPlan:
    """`edited` (made from `unplaced(original)`) placed as `original` was."""
    if original.system_placement is SystemPlacement.FIRST_USER:
        carried = [m for m in edited.messages if m.role == "system"]
        if carried:
            return _moved(edited, carried, counter, forced=False)
    return edited


_ALONE = "context"
_HINT_START = "sent at the start of the first user message"


def _moved(
    plan: ContextPlan, carried: Sequence[SentMessage], counter: TokenCounter, *, forced: bool
) -> ContextPlan:
    rest = [m for m in plan.messages if m.role != "system"]
    contents = [m.content for m in carried]
    first = rest[0] if rest else None
    if first is not None and first.role == "user":
        prefix = FRAME.framed(contents, "")
        merged = PlanMessage(
            "user",
            prefix + first.content,
            first.layer,
            first.tokens + counter.count_text(prefix),
            first.ref,
            (*_plain(carried), _plain_one(first)),
        )
        messages = [merged, *rest[1:]]
        where = f"({first.ref})"
    else:
        text = FRAME.framed(contents, None)
        alone = PlanMessage(
            "user",
            text,
            carried[0].layer,
            count_message(counter, "user", text).tokens,
            _ALONE,
            tuple(_plain(carried)),
        )
        merged = alone
        messages = [alone, *rest]
        where = "(a user message of its own, as the conversation starts with a reply)"
    extra = merged.tokens - sum(part.tokens for part in merged.parts)
    why = 'as [context] system_placement = "user" asks' if forced else WHY_DROPPED
    hint = f"{_HINT_START} {where}: {why}"
    layers = _with_layer_text(plan.layers, carried, hint=hint)
    first_layer = carried[0].layer
    layers = tuple(
        dataclasses.replace(lp, tokens=lp.tokens + extra) if lp.layer is first_layer else lp
        for lp in layers
    )
    return dataclasses.replace(
        plan,
        messages=tuple(messages),
        layers=layers,
        tokens=plan.tokens + extra,
        system_placement=SystemPlacement.FIRST_USER,
    )


def _with_layer_text(
    layers: Sequence[LayerPlan],
    carried: Sequence[SentMessage],
    *,
    note: str | None = None,
    hint: str | None = None,
) -> tuple[LayerPlan, ...]:
    """The layers, those whose message is carried told `note` (a problem) or `hint`."""
    touched = {m.layer for m in carried}
    changed = []
    for lp in layers:
        if lp.layer in touched:
            if note is not None:
                lp = dataclasses.replace(lp, notes=(*lp.notes, note))
            if hint is not None:
                lp = dataclasses.replace(lp, hints=(*lp.hints, hint))
        changed.append(lp)
    return tuple(changed)


def _plain(messages: Sequence[SentMessage]) -> tuple[PlanMessage, ...]:
    return tuple(_plain_one(m) for m in messages)


def _plain_one(message: SentMessage) -> PlanMessage:
    """A message as a `PlanMessage` (a stored message of the working layer is one too)."""
    return PlanMessage(message.role, message.content, message.layer, message.tokens, message.ref)
