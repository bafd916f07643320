"""The token budget: context window minus output reserve, split into layer shares."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class Layer(StrEnum):
    """Context layers, in the fixed order they are sent."""

    SYSTEM = "system"
    MEMORY = "memory"
    SUMMARY = "summary"
    TASK = "task"
    FILES = "files"
    RECALL = "recall"
    WORKING = "working"
    INPUT = "input"


SHARED_LAYERS = (
    Layer.SYSTEM,
    Layer.MEMORY,
    Layer.SUMMARY,
    Layer.TASK,
    Layer.FILES,
    Layer.RECALL,
    Layer.WORKING,
)


class BudgetError(ValueError):
    """A budget setting that cannot work; the message names the value that is wrong."""


@dataclass(frozen=True, slots=True)
class BudgetShares:
    """Fractions of the input budget given to each layer (the input itself is counted first)."""

    system: float = 0.10
    memory: float = 0.10
    summary: float = 0.20
    working: float = 0.60
    # Recall has no share of its own until it finds something (see core.adaptive).
    recall: float = 0.0
    # Nor have the task state and attached files until a conversation has them.
    task: float = 0.0
    files: float = 0.0

    def __post_init__(self) -> None:
        for layer in SHARED_LAYERS:
            value = self.of(layer)
            if not isinstance(value, int | float) or math.isnan(value):
                raise BudgetError(f"{layer} share must be a number, got {value!r}")
            if value < 0:
                raise BudgetError(f"{layer} share is {value}: a share cannot be negative")
            if value > 1:
                raise BudgetError(f"{layer} share is {value}: a share cannot exceed 1")
        total = sum(self.of(layer) for layer in SHARED_LAYERS)
        if total > 1 + 1e-9:
            listed = ", ".join(f"{layer} {self.of(layer):g}" for layer in SHARED_LAYERS)
            raise BudgetError(f"shares add up to {total:g} ({listed}); they must not exceed 1")

    def of(self, layer: Layer) -> float:
        """The share of one layer (the input layer has none: it is counted first)."""
        if layer is Layer.INPUT:
            return 0.0
        value: float = getattr(self, layer.value)
        return value

    def as_dict(self) -> dict[str, float]:
        return {layer.value: self.of(layer) for layer in SHARED_LAYERS}


@dataclass(frozen=True, slots=True)
class Budget:
    """How many input tokens a request may use, and how they are shared out."""

    context_window: int
    output_reserve: int
    shares: BudgetShares = BudgetShares()
    margin: int = 0
    """Tokens left free besides the reply's: what ctxchat's count runs under the server's."""

    def __post_init__(self) -> None:
        if self.context_window <= 0:
            raise BudgetError(f"context window is {self.context_window}: it must be positive")
        if self.output_reserve < 0:
            raise BudgetError(f"output reserve is {self.output_reserve}: it cannot be negative")
        if self.output_reserve >= self.context_window:
            raise BudgetError(
                f"output reserve ({self.output_reserve}) must be smaller than the context "
                f"window ({self.context_window})"
            )

    @property
    def total(self) -> int:
        """Input tokens available: context window minus output reserve (and the margin)."""
        return max(1, self.context_window - self.output_reserve - self.margin)

    def nominal(self, layer: Layer) -> int:
        """A layer's share of the total, rounded down."""
        return math.floor(self.total * self.shares.of(layer))
