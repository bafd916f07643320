"""Counterfactual plans: a reply's stored plan with one change (a layer or items left out,
the other mode), so the same request can be asked again and the answers compared."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ctxchat.core.budget import Layer
from ctxchat.core.memory import PLURALS, MemoryKind, Mode, memory_header
from ctxchat.core.placement import placed_like, unplaced
from ctxchat.core.plan import (
    ContextPlan,
    Item,
    LayerPlan,
    LeftOut,
    PlanItem,
    PlanMessage,
    Reason,
    SentMessage,
)
from ctxchat.core.tokens import TokenCounter, count_message

__all__ = [
    "LEAVABLE_LAYERS",
    "Change",
    "CounterfactualError",
    "counterfactual_plan",
    "parse_without",
    "refs_of",
]

# The layers a variant can be asked without; the system prompt, working memory and the
# input are the conversation itself.
LEAVABLE_LAYERS = (Layer.MEMORY, Layer.SUMMARY, Layer.TASK, Layer.FILES, Layer.RECALL)
_REF = re.compile(r"^(memory|message|summary):(v?\d+)$")
_ASKED_WITHOUT = "left out for this variant"


class CounterfactualError(ValueError):
    """A change that cannot be made to this plan; the message says why in one line."""


def parse_without(spec: str) -> str:
    """A `--without` value checked: a layer (memory, summary, task, files, recall) or an item
    of the request (memory:3, message:12, summary:v2). Raises CounterfactualError."""
    value = spec.strip().lower()
    if value in {layer.value for layer in LEAVABLE_LAYERS} or _REF.match(value):
        return value
    raise CounterfactualError(
        f"cannot leave out {spec!r}: give a layer ({', '.join(LEAVABLE_LAYERS)}) or an item "
        "(memory:3, message:12, summary:v2)"
    )


@dataclass(frozen=True, slots=True)
class Change:
    """What a variant changes about a reply's request."""

    without: tuple[str, ...] = ()
    """Layers and items left out (see `parse_without`)."""
    mode: Mode | None = None
    """The mode to ask in (None: the reply's)."""
    model: str | None = None
    """Another model (same context)."""
    profile: str | None = None
    """Another provider profile (same context)."""
    replay: bool = False
    """Re-send the exact stored request (only the model may change)."""

    def describe(self) -> str:
        """The change in a few words, as the variant is labelled."""
        parts = [f"without {', '.join(self.without)}"] if self.without else []
        if self.mode is not None:
            parts.append(f"in {self.mode.value} mode")
        if self.profile:
            parts.append(f"to profile {self.profile}")
        if self.model:
            parts.append(f"to model {self.model}")
        if self.replay:
            parts.insert(0, "replay of the stored request")
        return "; ".join(parts) or "asked again unchanged"


def counterfactual_plan(
    plan: ContextPlan,
    change: Change,
    *,
    counter: TokenCounter,
    memory_lines: Mapping[str, str] = {},
) -> ContextPlan:
    """`plan` as it would have been with `change`; everything else stays byte-identical.

    What is left out moves to the layer's left-out items with the reason "left out for
    this variant". Turning to personalization mode brings back the entries objective mode
    left out: `memory_lines` holds their lines (`render_entry`) by ref, as the memory holds
    them now. The request is left for the caller to build (`request` is None).
    Raises CounterfactualError for an item the request does not hold.
    """
    # System content moved into the first user message is edited where it came from, then
    # moved back the same way.
    edited = _Editing(unplaced(plan), counter)
    for target in change.without:
        edited.leave_out(parse_without(target))
    if change.mode is not None and change.mode.value != plan.mode:
        edited.to_mode(change.mode, memory_lines)
    return placed_like(plan, edited.result(change.mode), counter)


class _Editing:
    """A plan being changed layer by layer; `result()` puts it back together."""

    def __init__(self, plan: ContextPlan, counter: TokenCounter) -> None:
        self.plan = plan
        self.counter = counter
        self.layers = {layer.layer: layer for layer in plan.layers}
        self.messages: list[SentMessage] = list(plan.messages)

    # --- leaving out ----------------------------------------------------------------------

    def leave_out(self, target: str) -> None:
        if any(
            o.ref == target and o.reason is Reason.ASKED_WITHOUT
            for layer in self.layers.values()
            for o in layer.left_out
        ):
            return  # already left out (with its whole layer, or named twice)
        if target in {layer.value for layer in LEAVABLE_LAYERS}:
            if Layer(target) not in self.layers:  # a plan stored before the layer existed
                raise self._missing(target)
            self._drop_layer(Layer(target))
            return
        if target.startswith("summary:") or target == "summary":
            if not any(i.ref == target for i in self.layers[Layer.SUMMARY].items):
                raise self._missing(target)
            self._drop_layer(Layer.SUMMARY)
            return
        found = False
        for layer in (Layer.MEMORY, Layer.RECALL):
            if any(item.ref == target for item in self.layers[layer].items):
                self._drop_line(layer, target, Reason.ASKED_WITHOUT, _ASKED_WITHOUT)
                found = True
        if target.startswith("message:") and any(
            item.ref == target for item in self.layers[Layer.WORKING].items
        ):
            self._drop_working(target)
            found = True
        if not found:
            raise self._missing(target)

    def _missing(self, target: str) -> CounterfactualError:
        return CounterfactualError(
            f"{target} is not in this reply's request, so there is nothing to leave out"
        )

    def _drop_layer(self, layer: Layer) -> None:
        current = self.layers[layer]
        moved = [_left(item, Reason.ASKED_WITHOUT, _ASKED_WITHOUT) for item in current.items]
        self.layers[layer] = dataclasses.replace(
            current, tokens=0, items=(), left_out=(*moved, *current.left_out)
        )
        self.messages = [m for m in self.messages if m.layer is not layer]

    def _drop_working(self, ref: str) -> None:
        current = self.layers[Layer.WORKING]
        item = next(i for i in current.items if i.ref == ref)
        self.layers[Layer.WORKING] = dataclasses.replace(
            current,
            tokens=current.tokens - item.tokens,
            items=tuple(i for i in current.items if i.ref != ref),
            left_out=(_left(item, Reason.ASKED_WITHOUT, _ASKED_WITHOUT), *current.left_out),
        )
        self.messages = [m for m in self.messages if m.ref != ref]

    def _drop_line(self, layer: Layer, ref: str, reason: Reason, detail: str) -> None:
        """Take one entry's line out of the layer's message (memory or recall)."""
        current = self.layers[layer]
        index, message = self._message_of(layer)
        lined = _lined_items(current)
        lines = message.content.splitlines(keepends=True)
        head, tail = lines[: len(lines) - len(lined)], lines[len(lines) - len(lined) :]
        position = next(n for n, item in enumerate(lined) if item.ref == ref)
        item = lined[position]
        del tail[position]
        items = tuple(i for i in current.items if i.ref != ref)
        left = [_left(item, reason, detail)]
        if any(i.ref != "date" for i in items):
            tokens = current.tokens - item.tokens
            self.messages[index] = _with_content(message, "".join(head + tail), tokens)
        else:
            # No line left: the message goes, and with it the date line it carried.
            left += [_left(i, reason, "no memory entry left to date") for i in items]
            items, tokens = (), 0
            del self.messages[index]
        self.layers[layer] = dataclasses.replace(
            current, tokens=tokens, items=items, left_out=(*left, *current.left_out)
        )

    def _message_of(self, layer: Layer) -> tuple[int, SentMessage]:
        for index, message in enumerate(self.messages):
            if message.layer is layer:
                return index, message
        raise CounterfactualError(f"the {layer.value} message is missing from this request")

    # --- mode -------------------------------------------------------------------------------

    def to_mode(self, mode: Mode, memory_lines: Mapping[str, str]) -> None:
        if mode is Mode.OBJECTIVE:
            self._to_objective()
        else:
            self._to_personalization(memory_lines)

    def _to_objective(self) -> None:
        current = self.layers[Layer.MEMORY]
        if not current.items:
            return
        _, message = self._message_of(Layer.MEMORY)
        lined = _lined_items(current)
        lines = message.content.splitlines(keepends=True)[-len(lined) :] if lined else []
        for item, line in zip(lined, lines, strict=True):
            kind = _line_kind(line)
            if kind is not None and not Mode.OBJECTIVE.includes(kind):
                detail = f"excluded: objective mode leaves out {PLURALS[kind]}"
                self._drop_line(Layer.MEMORY, item.ref, Reason.MODE, detail)

    def _to_personalization(self, memory_lines: Mapping[str, str]) -> None:
        current = self.layers[Layer.MEMORY]
        back = [o for o in current.left_out if o.reason is Reason.MODE and o.ref in memory_lines]
        if not back:
            return
        added = [
            PlanItem(o.ref, self.counter.count_text(memory_lines[o.ref]), o.label) for o in back
        ]
        text = "".join(memory_lines[o.ref] for o in back)
        if current.items:
            index, message = self._message_of(Layer.MEMORY)
            tokens = current.tokens + sum(i.tokens for i in added)
            self.messages[index] = _with_content(message, message.content + text, tokens)
        else:
            header = memory_header()
            tokens = count_message(self.counter, "system", header).tokens + sum(
                i.tokens for i in added
            )
            at = sum(1 for m in self.messages if m.layer is Layer.SYSTEM)
            self.messages.insert(
                at, PlanMessage("system", header + text, Layer.MEMORY, tokens, "memory")
            )
        refs = {o.ref for o in back}
        self.layers[Layer.MEMORY] = dataclasses.replace(
            current,
            tokens=tokens,
            items=(*current.items, *added),
            left_out=tuple(o for o in current.left_out if o.ref not in refs),
        )

    # --- the result ---------------------------------------------------------------------

    def result(self, mode: Mode | None) -> ContextPlan:
        layers = tuple(self.layers[layer.layer] for layer in self.plan.layers)
        tokens = sum(layer.tokens for layer in layers)
        warnings = self.plan.warnings
        if tokens > self.plan.total_budget:
            warnings = (
                *warnings,
                f"This variant is {tokens - self.plan.total_budget:,} tokens over the budget.",
            )
        return dataclasses.replace(
            self.plan,
            mode=mode.value if mode is not None else self.plan.mode,
            layers=layers,
            messages=tuple(self.messages),
            tokens=tokens,
            warnings=warnings,
            prefix_messages=0,
            prefix_tokens=0,
            request=None,
        )


def _lined_items(layer: LayerPlan) -> list[Item]:
    """The items of a memory or recall layer that are one line each at the message's end."""
    return [item for item in layer.items if item.ref != "date"]


def _left(item: Item, reason: Reason, detail: str) -> LeftOut:
    return LeftOut(item.ref, item.tokens, reason, detail, item.label)


def _with_content(message: SentMessage, content: str, tokens: int) -> PlanMessage:
    return PlanMessage(message.role, content, message.layer, tokens, message.ref)


def _line_kind(line: str) -> MemoryKind | None:
    """The kind a memory line is labelled with (`- [preference: …] …`)."""
    match = re.match(r"- \[([a-z]+)", line)
    if match is None:
        return None
    try:
        return MemoryKind(match.group(1))
    except ValueError:
        return None


def refs_of(plan: ContextPlan, layers: Iterable[Layer] = LEAVABLE_LAYERS) -> list[str]:
    """The items of these layers a variant can be asked without (what the dialog offers)."""
    return [
        item.ref
        for layer in plan.layers
        if layer.layer in layers
        for item in layer.items
        if item.ref != "date"
    ]
