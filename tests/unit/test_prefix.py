"""The shared prefix between consecutive requests."""

from ctxchat.core.budget import Layer
from ctxchat.core.plan import PlanMessage
from ctxchat.core.prefix import SharedPrefix, shared_prefix


def message(role: str, content: str, tokens: int) -> PlanMessage:
    return PlanMessage(role, content, Layer.WORKING, tokens, "x")


def test_identical_start_counts_until_the_first_difference() -> None:
    before = [message("system", "S", 10), message("system", "M", 20), message("user", "a", 5)]
    after = [message("system", "S", 10), message("system", "M", 20), message("user", "b", 5)]
    assert shared_prefix(before, after) == SharedPrefix(2, 30)


def test_appended_turns_keep_the_whole_previous_request() -> None:
    before = [message("system", "S", 10), message("user", "q1", 5)]
    after = [*before, message("assistant", "a1", 6), message("user", "q2", 5)]
    assert shared_prefix(before, after) == SharedPrefix(2, 15)


def test_a_changed_first_message_shares_nothing() -> None:
    assert shared_prefix(
        [message("system", "S", 10)], [message("system", "T", 10)]
    ) == SharedPrefix(0, 0)
    assert shared_prefix([], [message("user", "q", 5)]) == SharedPrefix(0, 0)
