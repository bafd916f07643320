"""The context plan: what each layer holds, costs and left out, and the exact messages to send."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from ctxchat.core.budget import Layer

PLAN_FORMAT = 1


class Reason(StrEnum):
    """Why an item was left out of the request."""

    MODE = "mode"  # excluded by objective mode
    DISABLED = "disabled"  # the user excluded the entry
    BUDGET = "budget"  # did not fit its layer's budget
    SUMMARIZED = "summarized"  # folded into the summary
    FAILED = "failed"  # a failed reply with nothing worth sending
    SCOPE = "scope"  # belongs to another conversation
    DUPLICATE = "duplicate"  # a recall hit already in working memory
    SUPERSEDED = "superseded"  # a memory entry replaced by a newer one on its key
    ASKED_WITHOUT = "asked_without"  # left out by the user for a variant of a reply
    EXCLUDED = "excluded"  # a message the user left out of every request until included


class PlanStatus(StrEnum):
    OK = "ok"
    OVER_BUDGET = "over_budget"


class Item(Protocol):
    """Something a layer includes: a PlanItem, or a stored message itself (working layer)."""

    @property
    def ref(self) -> str: ...
    @property
    def tokens(self) -> int: ...
    @property
    def label(self) -> str: ...


class SentMessage(Protocol):
    """One message of the request: a PlanMessage, or a stored message itself (working layer)."""

    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def layer(self) -> Layer: ...
    @property
    def tokens(self) -> int: ...
    @property
    def ref(self) -> str: ...


@dataclass(frozen=True, slots=True)
class OtherConversation:
    """The conversation a recalled message comes from when it is not the request's own
    (recall across conversations): its id, its title and the day the message was written."""

    id: int
    title: str
    date: str
    """The message's day, `YYYY-MM-DD` in the machine's time zone."""

    def to_dict(self) -> dict[str, Any]:
        return {"conversation": self.id, "title": self.title, "date": self.date}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OtherConversation:
        return cls(int(data["conversation"]), str(data["title"]), str(data["date"]))


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One thing included in a layer: `ref` names it (`memory:4`, `message:17`, `summary:v3`,
    `conversation:4/message:17` for a message recalled from another conversation, which
    `source` then names)."""

    ref: str
    tokens: int
    label: str = ""
    source: OtherConversation | None = None


@dataclass(frozen=True, slots=True)
class LeftOut:
    """One thing left out of a layer, with the reason in words a user reads."""

    ref: str
    tokens: int
    reason: Reason
    detail: str
    label: str = ""


@dataclass(frozen=True, slots=True)
class LayerPlan:
    """One layer: its nominal budget and share, what it used, what it holds and left out.

    `notes` tell of something the user may want to fix (a layer over its share, a summary
    cut short); `hints` only explain how the layer chose.
    """

    layer: Layer
    budget: int
    share: float
    tokens: int
    items: tuple[Item, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    notes: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()


class SystemPlacement(StrEnum):
    """Where the system prompt, memory, summary, task, files and recall go in the request."""

    SYSTEM = "system"
    """As system messages (what every server but some chat templates reads)."""
    FIRST_USER = "first-user"
    """Moved into the opening of the first user message: the server's chat template
    drops system messages, or the user asked for it."""
    DROPPED = "dropped"
    """Sent as system messages to a server whose chat template drops them: they never
    reach the model (the user chose to keep the system role)."""


@dataclass(frozen=True, slots=True)
class PlanMessage:
    """One message of the request, with the layer it comes from and what it costs.

    `parts` are the messages it is made of when system content was moved into it (see
    `core/placement.py`): the system messages, then the user message they open.
    """

    role: str
    content: str
    layer: Layer
    tokens: int
    ref: str
    parts: tuple[PlanMessage, ...] = ()


@dataclass(frozen=True, slots=True)
class ContextPlan:
    """Everything one request is made of, decided before it is sent.

    `messages` is exactly what goes to the server. `status` is `over_budget` when the
    new input cannot fit even alone; then `messages` is empty and `over_by` says by how much.
    """

    status: PlanStatus
    mode: str
    context_window: int
    output_reserve: int
    total_budget: int
    shares: dict[str, float]
    counter: str
    exact: bool
    counter_note: str
    layers: tuple[LayerPlan, ...]
    messages: tuple[SentMessage, ...]
    tokens: int
    over_by: int = 0
    warnings: tuple[str, ...] = field(default=())
    share_notes: tuple[str, ...] = field(default=())
    """Why the shares in force differ from the configured ones (adaptive budget)."""
    prefix_messages: int = 0
    prefix_tokens: int = 0
    """Leading messages (and tokens) identical to the previous request's, once it is sent."""
    request: Mapping[str, Any] | None = None
    """The request this plan goes out as (`url`, masked `headers`, the whole `body`), once
    it is known: built by `ctxchat.model.request`, the same the client sends."""
    system_placement: SystemPlacement = SystemPlacement.SYSTEM
    """Where the system content went (see `SystemPlacement`)."""
    server_tokens: int | None = None
    """The prompt's tokens as the server counts them (its tokenizer's count of the rendered
    prompt, or of the messages with its template's cost), where it counts; None: only
    ctxchat's estimate (`tokens`) is known. Where known, it is the request's figure."""

    @property
    def prompt_tokens(self) -> int:
        """The request's figure: the server's count where it counts, else the estimate."""
        return self.tokens if self.server_tokens is None else self.server_tokens

    @property
    def over_window(self) -> int:
        """By how many tokens the prompt and the reply's room are over the window by the
        server's count (0: they fit, or the server does not count)."""
        if self.server_tokens is None:
            return 0
        return max(0, self.server_tokens + self.output_reserve - self.context_window)

    @property
    def free(self) -> int:
        """Room left for more of the conversation: in the window by the server's count
        where it counts (the reply's room kept), else in the budget by the estimate."""
        if self.server_tokens is not None:
            return max(0, self.context_window - self.output_reserve - self.server_tokens)
        return max(0, self.total_budget - self.tokens)

    def layer(self, layer: Layer) -> LayerPlan:
        for candidate in self.layers:
            if candidate.layer is layer:
                return candidate
        raise KeyError(layer)

    def request_messages(self) -> list[dict[str, str]]:
        """The `messages` array of the request, exactly as sent."""
        return [{"role": m.role, "content": m.content} for m in self.messages]

    @property
    def left_out(self) -> list[LeftOut]:
        return [item for layer in self.layers for item in layer.left_out]

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-ready data (the shape is documented in docs/context.md, "The context plan (JSON)")."""
        return {
            "format": PLAN_FORMAT,
            "status": self.status.value,
            "mode": self.mode,
            "budget": {
                "context_window": self.context_window,
                "output_reserve": self.output_reserve,
                "total": self.total_budget,
                "shares": dict(self.shares),
                "share_notes": list(self.share_notes),
            },
            "prefix": {"messages": self.prefix_messages, "tokens": self.prefix_tokens},
            "counter": {"name": self.counter, "exact": self.exact, "note": self.counter_note},
            "tokens": self.tokens,
            # Only where the server counts: plans stored before had no such key.
            **({"server_tokens": self.server_tokens} if self.server_tokens is not None else {}),
            "free": self.free,
            "over_by": self.over_by,
            "warnings": list(self.warnings),
            "layers": [
                {
                    "layer": lp.layer.value,
                    "budget": lp.budget,
                    "share": lp.share,
                    "tokens": lp.tokens,
                    "items": [_item_dict(i) for i in lp.items],
                    "left_out": [
                        {
                            "ref": o.ref,
                            "tokens": o.tokens,
                            "reason": o.reason.value,
                            "detail": o.detail,
                            "label": o.label,
                        }
                        for o in lp.left_out
                    ],
                    "notes": list(lp.notes),
                    # Only when there are any: plans stored before hints existed lack the key.
                    **({"hints": list(lp.hints)} if lp.hints else {}),
                }
                for lp in self.layers
            ],
            "messages": [_message_dict(m) for m in self.messages],
            **({"request": dict(self.request)} if self.request is not None else {}),
            # Only when not the usual system messages: plans stored before had no such key.
            **(
                {"system_placement": self.system_placement.value}
                if self.system_placement is not SystemPlacement.SYSTEM
                else {}
            ),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ContextPlan:
        """Rebuild a plan from `to_dict` output (what a stored reply keeps)."""
        budget = data["budget"]
        counter = data["counter"]
        return cls(
            status=PlanStatus(data["status"]),
            mode=data["mode"],
            context_window=budget["context_window"],
            output_reserve=budget["output_reserve"],
            total_budget=budget["total"],
            shares=dict(budget["shares"]),
            counter=counter["name"],
            exact=counter["exact"],
            counter_note=counter["note"],
            tokens=data["tokens"],
            over_by=data.get("over_by", 0),
            warnings=tuple(data.get("warnings", ())),
            share_notes=tuple(budget.get("share_notes", ())),
            prefix_messages=data.get("prefix", {}).get("messages", 0),
            prefix_tokens=data.get("prefix", {}).get("tokens", 0),
            request=data.get("request"),
            layers=tuple(
                LayerPlan(
                    layer=Layer(lp["layer"]),
                    budget=lp["budget"],
                    share=lp["share"],
                    tokens=lp["tokens"],
                    items=tuple(_item(i) for i in lp["items"]),
                    left_out=tuple(
                        LeftOut(o["ref"], o["tokens"], Reason(o["reason"]), o["detail"], o["label"])
                        for o in lp["left_out"]
                    ),
                    notes=tuple(lp["notes"]),
                    hints=tuple(lp.get("hints", ())),
                )
                for lp in data["layers"]
            ),
            messages=tuple(_message(m) for m in data["messages"]),
            system_placement=SystemPlacement(data.get("system_placement", "system")),
            server_tokens=data.get("server_tokens"),
        )


def _item_dict(item: Item) -> dict[str, Any]:
    data: dict[str, Any] = {"ref": item.ref, "tokens": item.tokens, "label": item.label}
    source = getattr(item, "source", None)
    if source is not None:  # only a message recalled from another conversation has one
        data["from"] = source.to_dict()
    return data


def _item(data: Mapping[str, Any]) -> PlanItem:
    source = data.get("from")
    return PlanItem(
        data["ref"],
        data["tokens"],
        data["label"],
        None if source is None else OtherConversation.from_dict(source),
    )


def _message_dict(message: SentMessage) -> dict[str, Any]:
    data: dict[str, Any] = {
        "role": message.role,
        "content": message.content,
        "layer": message.layer.value,
        "tokens": message.tokens,
        "ref": message.ref,
    }
    parts = getattr(message, "parts", ())
    if parts:
        data["parts"] = [_message_dict(part) for part in parts]
    return data


def _message(data: Mapping[str, Any]) -> PlanMessage:
    parts = tuple(_message(part) for part in data.get("parts", ()))
    return PlanMessage(
        data["role"], data["content"], Layer(data["layer"]), data["tokens"], data["ref"], parts
    )
