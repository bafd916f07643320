"""What a reply costs: usage times the price table; free on a local server; never a 0 guess."""

import pytest

from ctxchat.core.prices import (
    PRICE_DATE,
    SHIPPED_PRICES,
    Billing,
    CostStatus,
    ModelPrice,
    PriceTable,
    ReplyUsage,
    money,
    reply_cost,
    total_of,
)


def usage(
    model: str | None = "gpt-4o", billing: Billing | None = Billing.PRICED, **tokens: int | None
) -> ReplyUsage:
    counts: dict[str, int | None] = {
        "prompt_tokens": 12_000,
        "cached_tokens": 8_000,
        "completion_tokens": 500,
    }
    counts.update(tokens)
    return ReplyUsage(model, billing, **counts)  # type: ignore[arg-type]


def test_a_reply_costs_its_uncached_cached_and_completion_tokens() -> None:
    cost = reply_cost(usage(), PriceTable())
    # 4,000 × $2.50 + 8,000 × $1.25 + 500 × $10.00, per million.
    assert cost.amount == pytest.approx(0.025)
    assert (cost.status, cost.price_source, cost.price_date, cost.estimated) == (
        CostStatus.PRICED,
        "shipped",
        PRICE_DATE,
        False,
    )
    assert cost.text() == "$0.0250"
    assert cost.to_dict() == {
        "status": "priced",
        "amount": pytest.approx(0.025),
        "currency": "USD",
        "price_date": PRICE_DATE,
        "price_source": "shipped",
        "estimated": False,
        "note": "from usage",
        "text": "$0.0250",
    }


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-2024-08-06", 0.025),  # a dated snapshot costs what its model costs
        ("openai/GPT-4o", 0.025),  # a router's prefix and case do not matter
        ("gpt-4o-mini", 0.0015),
        ("gpt-5", 0.011),
        ("o4-mini", 0.0088),
    ],
)
def test_models_are_found_by_their_bare_name(model: str, expected: float) -> None:
    assert reply_cost(usage(model), PriceTable()).amount == pytest.approx(expected)


def test_every_known_openai_family_has_a_price() -> None:
    for name in ("gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano"):
        assert name in SHIPPED_PRICES
    for name in ("gpt-4o", "gpt-4o-mini", "o1", "o3", "o3-mini", "o4-mini"):
        assert name in SHIPPED_PRICES
    assert all(p.cached_input <= p.input < p.output for p in SHIPPED_PRICES.values())


def test_the_config_overrides_and_adds_prices() -> None:
    table = PriceTable({"gpt-4o": ModelPrice(1.0, 0.5, 4.0), "my-model": ModelPrice(1.0, 1.0, 2.0)})
    overridden = reply_cost(usage(), table)
    assert overridden.amount == pytest.approx(0.01)
    assert (overridden.price_source, overridden.price_date) == ("config", None)
    assert reply_cost(usage("my-model"), table).amount == pytest.approx(0.013)


def test_a_local_server_costs_nothing_and_says_so() -> None:
    cost = reply_cost(usage("gemma-3-270m", Billing.FREE), PriceTable())
    assert (cost.status, cost.amount, cost.text()) == (CostStatus.FREE, 0.0, "free (local server)")


@pytest.mark.parametrize(
    ("reply", "note"),
    [
        (usage("gemma-3-270m"), "no price for gemma-3-270m: add it under [prices]"),
        (usage(billing=None), "the reply's server was not recorded"),
        (usage(prompt_tokens=None), "the server reported no usage"),
    ],
)
def test_an_unknown_price_is_unknown_never_zero(reply: ReplyUsage, note: str) -> None:
    cost = reply_cost(reply, PriceTable())
    assert (cost.status, cost.amount) == (CostStatus.UNKNOWN, None)
    assert cost.text() == f"unknown ({note})"
    assert cost.to_dict()["amount"] is None


def test_a_reply_stopped_before_its_usage_is_priced_from_ctxchats_counts() -> None:
    stopped = ReplyUsage("gpt-4o", Billing.PRICED, None, None, None, 12_000, 500)
    cost = reply_cost(stopped, PriceTable())
    assert cost.amount == pytest.approx(0.035)
    assert cost.estimated and cost.text() == "~$0.0350"


def test_totals_count_what_is_unknown_apart() -> None:
    table = PriceTable()
    costs = [reply_cost(usage(), table), reply_cost(usage("x"), table), reply_cost(usage(), table)]
    total = total_of(costs)
    assert total.amount == pytest.approx(0.05)
    assert (total.priced, total.unknown) == (2, 1)
    assert total.text() == "$0.0500 + 1 unknown"
    assert total_of([]).text() == "nothing yet"
    free = reply_cost(usage(billing=Billing.FREE), table)
    assert total_of([free, free]).text() == "free (local server)"
    assert total_of([free, reply_cost(usage("x"), table)]).to_dict()["amount"] is None


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (0, "$0"),
        (0.00004, "<$0.0001"),
        (0.0021, "$0.0021"),
        (1.244, "$1.24"),
        (1234.5, "$1,234.50"),
    ],
)
def test_money(amount: float, text: str) -> None:
    assert money(amount) == text
