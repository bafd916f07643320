"""Budget arithmetic and validation of shares, window and reserve."""

import pytest

from ctxchat.core.budget import Budget, BudgetError, BudgetShares, Layer


def test_default_split_of_a_128k_window() -> None:
    budget = Budget(128_000, 4_096)
    assert budget.total == 123_904
    # Task, files and recall have no share until they have something to send; the input
    # is counted first.
    assert [budget.nominal(layer) for layer in Layer] == [
        12_390,
        12_390,
        24_780,
        0,
        0,
        0,
        74_342,
        0,
    ]


def test_custom_shares_may_leave_part_unassigned() -> None:
    budget = Budget(10_000, 1_000, BudgetShares(system=0.05, memory=0.05, summary=0.1, working=0.5))
    assert budget.total == 9_000
    assert budget.nominal(Layer.SYSTEM) == 450
    assert budget.nominal(Layer.WORKING) == 4_500


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"memory": -0.1}, "memory share is -0.1: a share cannot be negative"),
        ({"summary": 1.5}, "summary share is 1.5: a share cannot exceed 1"),
        (
            {"working": 0.7},
            "shares add up to 1.1 (system 0.1, memory 0.1, summary 0.2, task 0, files 0, "
            "recall 0, working 0.7); they must not exceed 1",
        ),
        ({"system": float("nan")}, "system share must be a number, got nan"),
    ],
)
def test_invalid_shares_name_the_wrong_value(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(BudgetError) as caught:
        BudgetShares(**kwargs)
    assert str(caught.value) == message


def test_window_smaller_than_reserve_is_rejected() -> None:
    with pytest.raises(BudgetError) as caught:
        Budget(4_096, 8_192)
    assert str(caught.value) == (
        "output reserve (8192) must be smaller than the context window (4096)"
    )


def test_non_positive_window_is_rejected() -> None:
    with pytest.raises(BudgetError, match="context window is 0: it must be positive"):
        Budget(0, 0)


def test_a_margin_for_a_server_that_counts_more_comes_off_the_input_budget() -> None:
    """The window and the reply's reserve stay as they are; what ctxchat's count runs under
    the server's is kept free besides."""
    budget = Budget(4_096, 512, margin=600)
    assert (budget.context_window, budget.output_reserve, budget.total) == (4_096, 512, 2_984)
