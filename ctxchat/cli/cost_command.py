"""`ctxchat costs`: what replies cost, per day over every conversation and each reply of one."""

from __future__ import annotations

import argparse
from typing import Any

from ctxchat.chat.context_planning import local_zone
from ctxchat.chat.costs import day_costs, message_cost
from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import conversation_id, print_json, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.tables import cell, console, table
from ctxchat.core.prices import CURRENCY, PRICE_DATE, PRICE_SOURCE, total_of
from ctxchat.store.markdown import when


def cost_command(args: argparse.Namespace, options: SessionOptions) -> int:
    if not 1 <= args.days <= 3660:
        raise CliError(f"--days is {args.days}: give a number of days from 1 to 3660", EXIT_USAGE)
    with workspace(options) as space:
        settings, store = space.settings, space.store
        days = day_costs(store, settings, local_zone(), days=args.days)
        conversation = conversation_id(space, options)
        answers = [] if conversation is None else store.costs.billed_answers(conversation)
    costs = [message_cost(settings, answer.usage) for answer in answers]
    report: dict[str, Any] = {
        "currency": CURRENCY,
        "price_date": PRICE_DATE,
        "price_source": PRICE_SOURCE,
        "days": [day.to_dict() for day in days],
        "conversation_id": conversation,
        "conversation": total_of(costs).to_dict(),
        "replies": [
            {
                "kind": answer.kind,
                "id": answer.id,
                "created_at": answer.created_at,
                "model": answer.usage.model,
                "cost": cost.to_dict(),
            }
            for answer, cost in zip(answers, costs, strict=True)
        ],
    }
    if getattr(args, "json", False):
        print_json(report)
        return 0
    grid = table("day", "replies", "cost", title=f"Cost per day ({CURRENCY})")
    for day in days:
        grid.add_row(day.day, str(day.total.replies), day.total.text())
    console().print(grid)
    if conversation is not None:
        replies = table("reply", "asked", "model", "cost", title=f"Conversation {conversation}")
        for answer, cost in zip(answers, costs, strict=True):
            replies.add_row(
                f"{'variant ' if answer.kind == 'variant' else '#'}{answer.id}",
                when(answer.created_at, "%Y-%m-%d %H:%M"),
                cell(answer.usage.model or ""),
                cell(cost.text()),
            )
        console().print(replies)
        print(f"Conversation {conversation}: {total_of(costs).text()}.")
    print(f"Prices: {PRICE_SOURCE}, as of {PRICE_DATE}; [prices] in the config overrides them.")
    return 0
