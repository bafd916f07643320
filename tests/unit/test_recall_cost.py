"""What the recall layer costs in a long conversation, pinned behind the `perf` marker."""

from __future__ import annotations

import pytest

from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage
from ctxchat.core.plan import LayerPlan
from ctxchat.core.recall import RecallCandidate, plan_recall, rank_recall
from ctxchat.core.tokens import TokenCounter


class NamedMessage(HistoryMessage):
    """A message that counts how often something asks its name (`message:N`)."""

    asked = 0

    @property
    def ref(self) -> str:
        NamedMessage.asked += 1
        return f"message:{self.id}"


def _working(count: int) -> list[HistoryMessage]:
    return [NamedMessage(i, "user", f"note number {i} about the garden", 12) for i in range(count)]


def _plan(
    counter: TokenCounter, hits: list[RecallCandidate], working: list[HistoryMessage]
) -> LayerPlan:
    NamedMessage.asked = 0
    layer, _ = plan_recall(
        Budget(128_000, 4_096),
        counter,
        rank_recall(hits, ["garden"]),
        working,
        LayerPlan(Layer.MEMORY, 0, 0.0, 0),
        2_000,
    )
    return layer


@pytest.mark.perf
def test_recall_names_only_the_working_messages_a_hit_repeats(counter: TokenCounter) -> None:
    """Protects assembly at 10,000 messages (bench/assemble.py): working memory holds
    thousands of messages, and naming each of them on every plan to spot a repeated text
    cost a quarter of the assembly. Recall looks for the hits' texts only."""
    working = _working(3_000)
    _plan(counter, [], working)
    assert NamedMessage.asked == 0
    repeat = RecallCandidate("message:90001", "user", working[7].content, 12, -3.0, 5, 90_001)
    other = RecallCandidate(
        "message:90002", "user", "the garden gate is green", 12, -2.0, 4, 90_002
    )
    layer = _plan(counter, [repeat, other], working)
    assert [(o.ref, o.detail) for o in layer.left_out] == [("message:90001", "same text as #7")]
    assert [item.ref for item in layer.items] == ["message:90002"]
    assert NamedMessage.asked == 1
