"""A plan's prompt tokens as the server counts them: its tokenizer's counts of each message
and its chat template's cost, calibrated from one reported `usage.prompt_tokens`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxchat.core.plan import SentMessage
from ctxchat.core.tokens import MESSAGE_OVERHEAD

# Counted texts that ctxchat estimated at fewer tokens than this say too little of the rest to
# scale their estimates by.
SCALING_SAMPLE = 50


@dataclass(frozen=True, slots=True)
class TemplateCost:
    """What the server's chat template adds: tokens per message (the reply's primer counts as
    one more message), and whether it drops system messages (no system role in the model)."""

    per_message: float
    drops_system: bool = False

    @classmethod
    def calibrate(
        cls, *, prompt_tokens: int, system_tokens: int, other_tokens: Sequence[int]
    ) -> TemplateCost:
        """From one request of a system message and `other_tokens` messages (content counts
        by the server's tokenizer) whose `usage.prompt_tokens` was `prompt_tokens`."""
        others = sum(other_tokens)
        # Even a template that wraps nothing left no room for the system text: it was dropped.
        drops = prompt_tokens - others < system_tokens
        counted, messages = (
            (others, len(other_tokens))
            if drops
            else (
                others + system_tokens,
                len(other_tokens) + 1,
            )
        )
        return cls(max(0.0, (prompt_tokens - counted) / (messages + 1)), drops)


@dataclass(frozen=True, slots=True)
class ServerFigure:
    """A plan's prompt tokens by the server's count; `estimated` messages were not counted by
    the server yet and used the estimate instead."""

    tokens: int
    estimated: int
    dropped_system: int = 0

    @property
    def exact(self) -> bool:
        return self.estimated == 0


def server_figure(
    messages: Sequence[SentMessage],
    counted: Callable[[str], int | None],
    cost: TemplateCost,
) -> ServerFigure:
    """The server's count of `messages`: `counted(text)` is its tokenizer's count when known
    (no network here: an unknown text uses the plan's own estimate, scaled by how the counted
    ones compare with theirs, and is marked so)."""
    total = 0.0
    dropped = sent = 0
    uncounted: list[int] = []  # the estimates of the texts the server has not counted
    counted_estimates = 0
    for message in messages:
        if cost.drops_system and message.role == "system":
            dropped += 1
            continue
        sent += 1
        # The plan's count holds its own overhead and the role: the content is the rest.
        estimate = max(0, message.tokens - MESSAGE_OVERHEAD - 1)
        tokens = counted(message.content)
        if tokens is None:
            uncounted.append(estimate)
            continue
        total += tokens
        counted_estimates += estimate
    # A tokenizer that splits what tiktoken keeps whole (digits, punctuation) splits the new
    # texts as well: a big block not counted yet is not understated.
    scale = total / counted_estimates if counted_estimates >= SCALING_SAMPLE else 1.0
    total += scale * sum(uncounted) + cost.per_message * (sent + 1)
    return ServerFigure(round(total), len(uncounted), dropped)
