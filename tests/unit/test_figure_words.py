"""The words for a request's figure and a layer's share, the same on every surface."""

from __future__ import annotations

import dataclasses

from ctxchat.core.budget import Layer
from ctxchat.core.figure_words import figure_words, room_words, share_words
from ctxchat.core.plan import ContextPlan, LayerPlan, PlanStatus


def plan(server_tokens: int | None) -> ContextPlan:
    return ContextPlan(
        status=PlanStatus.OK,
        mode="personalization",
        context_window=8192,
        output_reserve=1024,
        total_budget=7168,
        shares={},
        counter="cl100k_base",
        exact=True,
        counter_note="",
        layers=(),
        messages=(),
        tokens=1872,
        server_tokens=server_tokens,
    )


def test_the_servers_count_is_the_figure_and_the_estimate_is_said_as_such() -> None:
    counted = plan(2041)
    assert figure_words(counted) == (
        "2,041 tokens by the server's count (ctxchat's estimate 1,872: the server's "
        "tokenizer and its chat template add 169)"
    )
    assert room_words(counted) == "free 5,127"
    assert figure_words(plan(None)) == "1,872 tokens (exact count)"
    assert room_words(plan(None)) == "free 5,296"


def test_no_free_room_where_the_servers_count_is_over() -> None:
    over = dataclasses.replace(plan(7300), tokens=6800)
    assert room_words(over) == "over the window by 132 by the server's count, reply included"
    assert over.free == 0


def test_working_memorys_share_is_a_target_and_says_what_it_took() -> None:
    working = LayerPlan(Layer.WORKING, budget=2867, share=0.4, tokens=6432)
    assert share_words(working) == ("target 2,867 (40%), took 3,565 the other layers left unused")
    assert share_words(LayerPlan(Layer.MEMORY, budget=716, share=0.1, tokens=80)) == (
        "cap 716 (10%)"
    )
