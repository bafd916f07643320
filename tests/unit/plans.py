"""A plan with the usual small inputs, for core tests that change only some of them."""

from typing import Any

from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget
from ctxchat.core.memory import Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.tokens import TokenCounter

# The shares the task and files layers take by default (see config/settings.py).
ADAPTIVE = AdaptivePolicy(task_share=0.05, files_share=0.25)


def plan_with(counter: TokenCounter, **changes: Any) -> ContextPlan:
    """An 8,000-token window, 1,000 reserved, a terse system prompt, no memory, summary or
    history, "Next?" as the new message and the default adaptive shares; `changes` replace
    any of them."""
    arguments: dict[str, Any] = {
        "budget": Budget(8_000, 1_000),
        "counter": counter,
        "mode": Mode.PERSONALIZATION,
        "system_prompt": "You are terse.",
        "memory": [],
        "summary": None,
        "history": [],
        "new_input": "Next?",
        "adaptive": ADAPTIVE,
    }
    return assemble_context(**(arguments | changes))
