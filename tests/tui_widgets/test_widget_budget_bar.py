"""The budget bar: layer split, shares, window and counter, the server's count and the drift."""

import pytest
from textual.content import Content

from ctxchat.core.budget import Budget
from ctxchat.core.plan import PlanStatus
from ctxchat.tui.widgets.budget_bar import BudgetBar, flow, share_text, split_cells

from .widget_hosts import HostApp, make_plan, rendered


@pytest.mark.parametrize(
    ("values", "width", "cells"),
    [
        ([1, 1, 1, 1], 8, [2, 2, 2, 2]),
        ([10, 50, 22, 60, 12, 123_750], 40, [1, 1, 1, 1, 1, 35]),
        ([0, 0, 5, 5], 10, [0, 0, 5, 5]),
        ([3, 3, 3], 10, [4, 3, 3]),
        ([1, 1, 1], 2, [1, 1, 0]),
        ([0, 0], 10, [0, 0]),
        ([5], 0, [0]),
    ],
)
def test_split_cells(values: list[int], width: int, cells: list[int]) -> None:
    assert split_cells(values, width) == cells


def test_split_cells_always_fills_the_width() -> None:
    for width in range(1, 120):
        assert sum(split_cells([9, 91, 22, 760, 12, 123_010], width)) == width


def test_share_text() -> None:
    assert [share_text(0, 10), share_text(1, 123_904), share_text(12_390, 123_904)] == [
        "0%",
        "<0.1%",
        "10.0%",
    ]


def test_flow_never_splits_a_part() -> None:
    parts = [Content("aaaa"), Content("bbb"), Content("cc"), Content("dddddddd")]
    assert [line.plain for line in flow(parts, 10)] == ["aaaa  bbb", "cc", "dddddddd"]


async def test_shows_window_budget_layers_and_counter() -> None:
    plan = make_plan()
    app = HostApp(lambda: [BudgetBar()])
    async with app.run_test(size=(100, 12)) as pilot:
        bar = app.query_one(BudgetBar)
        assert "no context plan yet" in rendered(bar)
        bar.update_plan(plan, window_source="server")
        await pilot.pause()
        text = rendered(bar)
        assert f"used {plan.tokens:,} of 123,904" in text
        assert f"free {plan.free:,}" in text
        for layer_plan in plan.layers:
            # The task and files layers are named only while they send something.
            named = f"{layer_plan.layer.value} {layer_plan.tokens:,} " in text
            assert named == (
                layer_plan.tokens > 0 or layer_plan.layer.value not in ("task", "files")
            )
        assert (
            "window 128,000 (from the server) · 4,096 kept for the reply "
            "exact counts (o200k_base, the encoding of gpt-4o)" in " ".join(text.split())
        )
        assert "server counted" not in text
        assert bar.plan is plan


@pytest.mark.parametrize(
    ("server", "sent", "shown"),
    [
        (170, 160, "server counted 170 · 10 more than ctxchat (+6.2%)"),
        (150, 160, "server counted 150 · 10 fewer than ctxchat (\u22126.2%)"),
        (160, 160, "server counted 160 · as ctxchat did (0.0%)"),
    ],
)
async def test_drift_against_our_count_of_the_same_request(
    server: int, sent: int, shown: str
) -> None:
    app = HostApp(lambda: [BudgetBar()])
    async with app.run_test(size=(80, 12)) as pilot:
        bar = app.query_one(BudgetBar)
        bar.update_plan(
            make_plan(), window_source="table", server_prompt_tokens=server, sent_tokens=sent
        )
        await pilot.pause()
        assert shown in rendered(bar)


async def test_drift_defaults_to_the_plans_own_total() -> None:
    plan = make_plan()
    app = HostApp(lambda: [BudgetBar()])
    async with app.run_test(size=(80, 12)) as pilot:
        bar = app.query_one(BudgetBar)
        bar.update_plan(plan, window_source="config", server_prompt_tokens=plan.tokens + 4)
        await pilot.pause()
        assert "4 more than ctxchat (+" in rendered(bar)


async def test_over_budget_plan_shows_by_how_much() -> None:
    plan = make_plan(new_input="token " * 9_000, budget=Budget(8_000, 1_000))
    assert plan.status is PlanStatus.OVER_BUDGET
    app = HostApp(lambda: [BudgetBar()])
    async with app.run_test(size=(80, 12)) as pilot:
        bar = app.query_one(BudgetBar)
        bar.update_plan(plan, window_source="config")
        await pilot.pause()
        text = rendered(bar)
        assert f"over budget by {plan.over_by:,}" in text
        assert "free " not in text
        assert "The message is 2,018 tokens over the budget of 7,000 tokens." in text


async def test_estimate_counter_is_marked_and_the_legend_wraps_by_width() -> None:
    from ctxchat.core.assemble import assemble_context
    from ctxchat.core.memory import Mode
    from ctxchat.core.tokens import EstimateCounter

    plan = assemble_context(
        budget=Budget(4_096, 512),
        counter=EstimateCounter("no tokenizer for gemma-3"),
        mode=Mode.PERSONALIZATION,
        system_prompt="Be brief.",
        memory=[],
        summary=None,
        history=[],
        new_input="hello",
    )
    app = HostApp(lambda: [BudgetBar()])
    async with app.run_test(size=(40, 20)) as pilot:
        bar = app.query_one(BudgetBar)
        bar.update_plan(plan, window_source="config")
        await pilot.pause()
        text = rendered(bar)
        assert "estimated counts (no tokenizer for gemma-3)" in " ".join(text.split())
        assert all(len(line) <= 40 for line in text.splitlines())
        narrow_height = bar.outer_size.height
        await pilot.resize_terminal(120, 20)
        await pilot.pause()
        assert bar.outer_size.height < narrow_height
