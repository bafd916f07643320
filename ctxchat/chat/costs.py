"""What replies cost: each answer's, a conversation's, a day's; and the status line's words.

Whether a server charges is decided when a reply is asked (`billing_for`, kept with the
reply); what it costs is its usage times the price table in force (`Settings.price_table`).
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any
from urllib.parse import urlsplit

from ctxchat.chat.context_planning import local_zone
from ctxchat.chat.session import ChatSession
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.core.history import MessageStatus
from ctxchat.core.prices import (
    Billing,
    Cost,
    CostTotal,
    Pricing,
    ReplyUsage,
    reply_cost,
    total_of,
)
from ctxchat.store import Store, StoredMessage
from ctxchat.store.costs import BilledAnswer

__all__ = [
    "CostSummary",
    "DayCost",
    "billing_for",
    "conversation_costs",
    "cost_status_text",
    "cost_summary",
    "day_costs",
    "is_local_host",
    "message_cost",
    "reply_cost_of",
    "usage_of",
]

# Names that only ever mean this machine or the local network.
_LOCAL_SUFFIXES = (".localhost", ".local", ".lan", ".home.arpa", ".internal")


def is_local_host(host: str) -> bool:
    """Whether `host` is this machine or the local network (loopback, private or link-local
    addresses, `localhost`, `.local` names)."""
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(_LOCAL_SUFFIXES):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def billing_for(profile: ProviderProfile) -> Billing:
    """Whether replies from `profile`'s server cost money (its `pricing`, "auto": a server on
    this machine or the local network is free)."""
    if profile.pricing is Pricing.FREE:
        return Billing.FREE
    if profile.pricing is Pricing.PRICED:
        return Billing.PRICED
    host = urlsplit(profile.base_url).hostname or ""
    return Billing.FREE if is_local_host(host) else Billing.PRICED


def message_cost(settings: Settings, usage: ReplyUsage) -> Cost:
    """One answer's cost, with the price table in force."""
    return reply_cost(usage, settings.price_table())


def usage_of(message: StoredMessage) -> ReplyUsage:
    """What a stored reply says about its request (see `ReplyUsage`)."""
    billing = message.billing
    return ReplyUsage(
        message.model,
        Billing(billing) if billing in ("free", "priced") else None,
        message.prompt_tokens,
        message.cached_tokens,
        message.completion_tokens,
        message.estimated_prompt_tokens,
        message.tokens,
        failed=message.status is MessageStatus.FAILED,
    )


def reply_cost_of(session: ChatSession, message_id: int) -> Cost:
    """What the stored reply `message_id` cost (`ctxchat send --json`, the reply's details)."""
    return message_cost(session.settings, usage_of(session.store.messages.get_message(message_id)))


def conversation_costs(
    store: Store, settings: Settings, conversation_id: int | None = None
) -> dict[int, CostTotal]:
    """What each conversation's answers cost (or only one conversation's), by its id."""
    table = settings.price_table()
    grouped: dict[int, list[Cost]] = defaultdict(list)
    for answer in store.costs.billed_answers(conversation_id):
        grouped[answer.conversation_id].append(reply_cost(answer.usage, table))
    return {key: total_of(costs) for key, costs in grouped.items()}


@dataclass(frozen=True, slots=True)
class DayCost:
    """What the answers asked on one calendar day cost, over every conversation."""

    day: str
    total: CostTotal

    def to_dict(self) -> dict[str, Any]:
        return {"day": self.day, **self.total.to_dict()}


def day_costs(
    store: Store, settings: Settings, zone: tzinfo, *, days: int = 7, now: float | None = None
) -> list[DayCost]:
    """The last `days` calendar days in `zone` (today last), each with what its answers cost;
    a day without answers is listed, with nothing."""
    when = store.now() if now is None else now
    today = datetime.fromtimestamp(when, zone).date()
    first = today - timedelta(days=max(days, 1) - 1)
    start = datetime(first.year, first.month, first.day, tzinfo=zone).timestamp()
    table = settings.price_table()
    grouped: dict[str, list[Cost]] = defaultdict(list)
    for answer in store.costs.billed_answers(since=start):
        day = datetime.fromtimestamp(answer.created_at, zone).date().isoformat()
        grouped[day].append(reply_cost(answer.usage, table))
    listed = [(first + timedelta(days=n)).isoformat() for n in range((today - first).days + 1)]
    return [DayCost(day, total_of(grouped.get(day, ()))) for day in listed]


@dataclass(frozen=True, slots=True)
class CostSummary:
    """The costs the status line tells: the newest answer's, the conversation's, today's."""

    reply: Cost | None
    conversation: CostTotal
    today: CostTotal

    def text(self) -> str:
        """`cost: reply $0.0021 · conversation $0.043 · today $0.31`; a local server says
        `cost: free (local server)`; before any reply, `cost: nothing yet`."""
        if self.reply is None:
            return "cost: nothing yet"
        if (
            self.conversation.free == self.conversation.replies
            and self.today.free == self.today.replies
        ):
            return "cost: free (local server)"
        return (
            f"cost: reply {self.reply.text()} · conversation {self.conversation.text()} · "
            f"today {self.today.text()}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "reply": None if self.reply is None else self.reply.to_dict(),
            "conversation": self.conversation.to_dict(),
            "today": self.today.to_dict(),
            "text": self.text(),
        }


def cost_summary(
    store: Store, settings: Settings, conversation_id: int | None, zone: tzinfo
) -> CostSummary:
    """What the newest answer of the conversation, the conversation and today cost."""
    table = settings.price_table()
    answers: list[BilledAnswer] = (
        [] if conversation_id is None else store.costs.billed_answers(conversation_id)
    )
    costs = [reply_cost(answer.usage, table) for answer in answers]
    (today,) = day_costs(store, settings, zone, days=1)
    return CostSummary(costs[-1] if costs else None, total_of(costs), today.total)


def cost_status_text(session: ChatSession) -> str:
    """The status line's cost words for a session's conversation (see `CostSummary.text`)."""
    summary = cost_summary(session.store, session.settings, session.conversation_id, local_zone())
    return summary.text()
