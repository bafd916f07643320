"""The words every surface uses for a request's figure and a layer's share: the server's
count where it counts (ctxchat's estimate beside it, as such), and whether a share is a cap
or a target."""

from __future__ import annotations

from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan, LayerPlan


def figure_words(plan: ContextPlan) -> str:
    """The request's tokens as every surface says them: `2,041 tokens by the server's count
    (ctxchat's estimate 1,872: the server's tokenizer and its chat template add 169)`, or
    `1,872 tokens (ctxchat's estimate)` where the server does not count."""
    if plan.server_tokens is None:
        kind = "exact count" if plan.exact else "ctxchat's estimate"
        return f"{plan.tokens:,} tokens ({kind})"
    counted = "by the server's count" if plan.exact else "by the server's count, in part scaled"
    return f"{plan.server_tokens:,} tokens {counted} ({estimate_words(plan)})"


def estimate_words(plan: ContextPlan) -> str:
    """ctxchat's estimate, said as such, and why the server's count differs from it."""
    if plan.server_tokens is None:
        return f"ctxchat's estimate {plan.tokens:,}"
    difference = plan.server_tokens - plan.tokens
    how = (
        f"the server's tokenizer and its chat template add {difference:,}"
        if difference >= 0
        else f"the server's tokenizer counts {-difference:,} fewer"
    )
    return f"ctxchat's estimate {plan.tokens:,}: {how}"


def room_words(plan: ContextPlan) -> str:
    """What is left of the window (or the budget) by the same figure: `free 5,497`, or how
    far over the window the server's count is."""
    if plan.over_window:
        return f"over the window by {plan.over_window:,} by the server's count, reply included"
    return f"free {plan.free:,}"


def share_words(layer: LayerPlan) -> str:
    """A layer's share, saying what it is: working memory's is a target (it takes what the
    other layers leave unused), the system prompt's is never cut, the others' are caps."""
    share = f"{layer.budget:,} ({layer.share:.0%})"
    if layer.layer is Layer.WORKING:
        took = layer.tokens - layer.budget
        if took > 0:
            return f"target {share}, took {took:,} the other layers left unused"
        return f"target {share}"
    if layer.layer is Layer.SYSTEM:
        return f"share {share}, never cut"
    return f"cap {share}"


def over_cap(layer: LayerPlan) -> bool:
    """Whether a layer holds more than its cap (working memory's target is no cap)."""
    return layer.layer not in (Layer.WORKING, Layer.INPUT) and layer.tokens > layer.budget
