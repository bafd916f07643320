"""Plans that fit the window by the server's own count, the reply's room included."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from ctxchat.core.budget import Budget
from ctxchat.core.plan import ContextPlan

FIT_STEPS = 4
"""How many times a plan over the window by the server's count is made again with less."""


def fit_to_server(assemble: Callable[[Budget], ContextPlan], budget: Budget) -> ContextPlan:
    """The plan `assemble` makes in `budget`, made again with as much more kept free as the
    server's count says it is over the window (prompt plus the reply's room), until it fits.

    Where the server does not count, the first plan stands (its margin is what the server
    counted beyond the estimate so far). The result depends only on the budget and the
    counts: every process plans the same request alike.
    """
    plan = assemble(budget)
    for _ in range(FIT_STEPS):
        over = plan.over_window
        if over <= 0 or plan.server_tokens is None or not plan.messages:
            return plan
        # The budget is in ctxchat's tokens: the server's excess, scaled back to them.
        ratio = max(1.0, plan.server_tokens / plan.tokens) if plan.tokens else 1.0
        margin = budget.margin + math.ceil(over / ratio) + 1
        if budget.context_window - budget.output_reserve - margin < 1:
            return plan
        budget = dataclasses.replace(budget, margin=margin)
        plan = assemble(budget)
    return plan
