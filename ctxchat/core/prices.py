"""What a reply costs: its usage (prompt, cached prompt, completion tokens) times a price table.

The table ships for the OpenAI models ctxchat knows (`SHIPPED_PRICES`, dated `PRICE_DATE`);
`[prices]` in the config overrides or adds entries. A reply from a server on this machine or
the local network costs nothing and says so; a price nobody gave is "unknown", never 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ctxchat.core.tokens import bare_model_name

CURRENCY = "USD"

PRICE_DATE = "2026-11-27"
"""When the shipped prices were read: OpenAI's standard-tier prices per 1M text tokens as its
pricing page (developers.openai.com/api/docs/pricing) and model pages publish them, checked
against gateways that pass OpenAI's rates on (Vercel AI Gateway's model pages, GitHub Docs'
Copilot price table). Prices change: `[prices]` in the config corrects them."""

PRICE_SOURCE = "OpenAI's published API prices (developers.openai.com/api/docs/pricing)"


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """Dollars per million tokens: prompt tokens, prompt tokens read from the provider's
    cache, and completion tokens (reasoning included)."""

    input: float
    cached_input: float
    output: float

    def cost(self, prompt: int, cached: int, completion: int) -> float:
        """Dollars for one request's usage (`cached` is part of `prompt`)."""
        cached = min(max(cached, 0), prompt)
        return (
            (prompt - cached) * self.input + cached * self.cached_input + completion * self.output
        ) / 1_000_000


# Standard tier, USD per 1M tokens: input, cached input, output (see PRICE_DATE).
SHIPPED_PRICES: dict[str, ModelPrice] = {
    "gpt-5": ModelPrice(1.25, 0.125, 10.00),
    "gpt-5-mini": ModelPrice(0.25, 0.025, 2.00),
    "gpt-5-nano": ModelPrice(0.05, 0.005, 0.40),
    "gpt-4.1": ModelPrice(2.00, 0.50, 8.00),
    "gpt-4.1-mini": ModelPrice(0.40, 0.10, 1.60),
    "gpt-4.1-nano": ModelPrice(0.10, 0.025, 0.40),
    "gpt-4o": ModelPrice(2.50, 1.25, 10.00),
    "gpt-4o-mini": ModelPrice(0.15, 0.075, 0.60),
    "o1": ModelPrice(15.00, 7.50, 60.00),
    "o1-mini": ModelPrice(1.10, 0.55, 4.40),
    "o3": ModelPrice(2.00, 0.50, 8.00),
    "o3-mini": ModelPrice(1.10, 0.55, 4.40),
    "o4-mini": ModelPrice(1.10, 0.275, 4.40),
}

# A dated snapshot ("gpt-4o-2024-08-06", "o3-mini-2025-01-31") costs what its model costs.
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


class Pricing(StrEnum):
    """A profile's `pricing` setting: how its replies are billed."""

    AUTO = "auto"
    """Free on this machine or the local network, priced elsewhere."""
    PRICED = "priced"
    FREE = "free"


class Billing(StrEnum):
    """Whether a reply's server charges for it (kept with each reply)."""

    FREE = "free"
    """A server on this machine or the local network (or one configured as free)."""
    PRICED = "priced"
    """A hosted server: the reply costs its usage times the model's price."""


class CostStatus(StrEnum):
    PRICED = "priced"
    FREE = "free"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class PriceFound:
    """A model's price and where it came from (the shipped table, dated, or the config)."""

    price: ModelPrice
    source: str
    date: str | None


class PriceTable:
    """The shipped prices with the config's on top; looks models up by their bare name."""

    def __init__(self, overrides: Mapping[str, ModelPrice] | None = None) -> None:
        self._shipped = SHIPPED_PRICES
        self._overrides = {
            bare_model_name(name): price for name, price in (overrides or {}).items()
        }

    def find(self, model: str | None) -> PriceFound | None:
        """The price of `model` ("openai/gpt-4o-2024-08-06" is gpt-4o's), or None."""
        if not model:
            return None
        name = bare_model_name(model)
        for candidate in dict.fromkeys((name, _SNAPSHOT.sub("", name))):
            if candidate in self._overrides:
                return PriceFound(self._overrides[candidate], "config", None)
            if candidate in self._shipped:
                return PriceFound(self._shipped[candidate], "shipped", PRICE_DATE)
        return None


@dataclass(frozen=True, slots=True)
class ReplyUsage:
    """What a stored reply says about its request: the model asked, whether its server
    charges (None: not recorded), the server's usage, and ctxchat's own counts (used, marked
    estimated, when the server reported no usage: a reply stopped before its end)."""

    model: str | None
    billing: Billing | None
    prompt_tokens: int | None
    cached_tokens: int | None
    completion_tokens: int | None
    estimated_prompt_tokens: int | None = None
    counted_tokens: int = 0
    failed: bool = False
    """The request failed (nothing came back): a provider bills no failed request."""


@dataclass(frozen=True, slots=True)
class Cost:
    """One reply's cost: an amount in `CURRENCY` when priced (0 when free), None when unknown."""

    status: CostStatus
    amount: float | None
    note: str
    price_source: str | None = None
    price_date: str | None = None
    estimated: bool = False

    def text(self) -> str:
        """`$0.0021`, `free (local server)`, `unknown (…)`."""
        if self.status is CostStatus.FREE:
            return "free (local server)"
        if self.amount is None:
            return f"unknown ({self.note})"
        return ("~" if self.estimated else "") + money(self.amount)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "amount": self.amount,
            "currency": CURRENCY,
            "price_date": self.price_date,
            "price_source": self.price_source,
            "estimated": self.estimated,
            "note": self.note,
            "text": self.text(),
        }


def reply_cost(usage: ReplyUsage, prices: PriceTable) -> Cost:
    """What one reply cost (see `ReplyUsage`)."""
    if usage.billing is Billing.FREE:
        return Cost(CostStatus.FREE, 0.0, "local server: no charge")
    if usage.billing is None:
        return Cost(CostStatus.UNKNOWN, None, "the reply's server was not recorded")
    if usage.failed and usage.prompt_tokens is None:
        return Cost(CostStatus.PRICED, 0.0, "the request failed: nothing billed")
    found = prices.find(usage.model)
    if found is None:
        model = usage.model or "an unnamed model"
        return Cost(CostStatus.UNKNOWN, None, f"no price for {model}: add it under [prices]")
    estimated = usage.prompt_tokens is None
    prompt = usage.prompt_tokens if not estimated else usage.estimated_prompt_tokens
    if prompt is None:
        return Cost(CostStatus.UNKNOWN, None, "the server reported no usage")
    completion = usage.completion_tokens
    if completion is None:
        estimated = True
        completion = usage.counted_tokens
    amount = found.price.cost(prompt, usage.cached_tokens or 0, completion)
    note = "ctxchat's own counts: the server reported no usage" if estimated else "from usage"
    return Cost(CostStatus.PRICED, amount, note, found.source, found.date, estimated)


@dataclass(frozen=True, slots=True)
class CostTotal:
    """Costs added up (a conversation's, a day's): the priced amount and how many replies were
    priced, free and of unknown cost."""

    amount: float = 0.0
    priced: int = 0
    free: int = 0
    unknown: int = 0
    estimated: int = 0
    price_dates: tuple[str, ...] = ()

    @property
    def replies(self) -> int:
        return self.priced + self.free + self.unknown

    def text(self) -> str:
        """`$0.043`, `$0.043 + 2 unknown`, `free (local server)`, `unknown`, `nothing yet`."""
        if not self.replies:
            return "nothing yet"
        if not self.priced:
            if self.unknown:
                return "unknown" if not self.free else f"unknown ({self.free} free)"
            return "free (local server)"
        text = ("~" if self.estimated else "") + money(self.amount)
        return text + (f" + {self.unknown} unknown" if self.unknown else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "amount": self.amount if self.priced or not self.unknown else None,
            "currency": CURRENCY,
            "price_date": self.price_dates[-1] if self.price_dates else None,
            "replies": self.replies,
            "priced": self.priced,
            "free": self.free,
            "unknown": self.unknown,
            "estimated": self.estimated,
            "text": self.text(),
        }


def total_of(costs: Iterable[Cost]) -> CostTotal:
    amount = 0.0
    priced = free = unknown = estimated = 0
    dates: set[str] = set()
    for cost in costs:
        if cost.status is CostStatus.FREE:
            free += 1
        elif cost.amount is None:
            unknown += 1
        else:
            priced += 1
            amount += cost.amount
            estimated += cost.estimated
            if cost.price_date:
                dates.add(cost.price_date)
    return CostTotal(amount, priced, free, unknown, estimated, tuple(sorted(dates)))


def money(amount: float) -> str:
    """Dollars as people read small sums: `$0`, `<$0.0001`, `$0.0021`, `$1.24`."""
    if amount == 0:
        return "$0"
    if amount < 0.0001:
        return "<$0.0001"
    if amount < 1:
        return f"${amount:.4f}"
    return f"${amount:,.2f}"
