"""The adaptive budget: shares in force at turn 5 and turn 50, with and without recall."""

from ctxchat.core.adaptive import AdaptivePolicy, RecallDemand, shares_in_force
from ctxchat.core.budget import BudgetShares


def test_turn_5_without_recall_keeps_the_configured_shares() -> None:
    in_force = shares_in_force(BudgetShares(), turns=5, has_recall=False, policy=AdaptivePolicy())
    assert in_force.shares == BudgetShares()
    assert in_force.reasons == ()


def test_turn_5_with_recall_takes_from_working() -> None:
    in_force = shares_in_force(BudgetShares(), turns=5, has_recall=True, policy=AdaptivePolicy())
    assert in_force.shares.as_dict() == {
        "system": 0.1,
        "memory": 0.1,
        "summary": 0.2,
        "task": 0.0,
        "files": 0.0,
        "recall": 0.1,
        "working": 0.5,
    }
    assert in_force.reasons == ("recall found earlier messages: it takes 10% from working",)


def test_turn_50_with_recall() -> None:
    in_force = shares_in_force(BudgetShares(), turns=50, has_recall=True, policy=AdaptivePolicy())
    assert in_force.shares.as_dict() == {
        "system": 0.1,
        "memory": 0.1,
        "summary": 0.25,
        "task": 0.0,
        "files": 0.0,
        "recall": 0.15,
        "working": 0.4,
    }
    assert in_force.reasons == (
        "recall found earlier messages: it takes 10% from working",
        "turn 50 > 20: working yields 10% (5% to summary, 5% to recall)",
    )


def test_turn_50_with_recall_off_gives_all_to_summary() -> None:
    policy = AdaptivePolicy(recall_enabled=False)
    in_force = shares_in_force(BudgetShares(), turns=50, has_recall=True, policy=policy)
    assert in_force.shares.as_dict()["summary"] == 0.3
    assert in_force.shares.as_dict()["recall"] == 0.0
    assert in_force.shares.as_dict()["working"] == 0.5
    assert in_force.reasons == ("turn 50 > 20: working yields 10% to summary",)


def test_no_policy_changes_nothing() -> None:
    assert shares_in_force(BudgetShares(), turns=500, has_recall=True, policy=None).reasons == ()


def test_strong_matches_take_the_share_they_need_up_to_the_most() -> None:
    needs_a_third = RecallDemand(matches=40, share=0.3)
    in_force = shares_in_force(
        BudgetShares(), turns=5, has_recall=True, policy=AdaptivePolicy(), demand=needs_a_third
    )
    assert in_force.shares.recall == 0.3
    assert in_force.shares.working == 0.3
    assert in_force.reasons == (
        "recall found 40 strong matches for 30% of the budget: it takes 30% from working "
        "(at most 80%)",
    )
    too_many = RecallDemand(matches=200, share=0.9)
    capped = shares_in_force(
        BudgetShares(), turns=50, has_recall=True, policy=AdaptivePolicy(), demand=too_many
    )
    # All of working's share, and no more: the rest of the most comes from what the other
    # layers leave unused (see core.assemble), and a long conversation's shift finds nothing
    # left to move.
    assert capped.shares.recall == 0.6
    assert capped.shares.working == 0.0
    assert capped.reasons == (
        "recall found 200 strong matches for 90% of the budget: it takes 60% from working "
        "(at most 80%)",
    )


def test_few_strong_matches_keep_the_usual_share() -> None:
    in_force = shares_in_force(
        BudgetShares(),
        turns=5,
        has_recall=True,
        policy=AdaptivePolicy(),
        demand=RecallDemand(matches=2, share=0.04),
    )
    assert in_force.shares.recall == 0.1
    assert in_force.reasons == ("recall found earlier messages: it takes 10% from working",)
