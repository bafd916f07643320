"""Where system content goes when the server's chat template drops system messages."""

from collections.abc import Callable

import pytest

from ctxchat.core.budget import Layer
from ctxchat.core.counterfactual import Change, counterfactual_plan
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.placement import (
    CONTEXT_CLOSING,
    CONTEXT_OPENING,
    PlacementChoice,
    place_system_content,
    unplaced,
)
from ctxchat.core.plan import ContextPlan, PlanMessage, SystemPlacement
from ctxchat.core.task import TaskState
from ctxchat.core.tokens import REPLY_PRIMER, TokenCounter, count_message

from .plans import plan_with
from .test_counterfactual import plan_of
from .test_files import attached

History = Callable[[list[str]], list[HistoryMessage]]
SUMMARY = SummaryState(2, "Earlier they chose SQLite.", 1, 2)


def sample(counter: TokenCounter, make_history: History) -> ContextPlan:
    history = make_history(["Hi there.", "Hello.", "Which port?", "Port 5432."])
    return plan_of(counter, history, summary=SUMMARY)


def place(
    plan: ContextPlan, choice: PlacementChoice, drops: bool, counter: TokenCounter
) -> ContextPlan:
    return place_system_content(plan, choice, drops_system=drops, counter=counter)


def layer_sum(plan: ContextPlan) -> int:
    return sum(layer.tokens for layer in plan.layers)


def test_auto_moves_system_content_into_a_marked_opening_of_the_first_user_message(
    counter: TokenCounter, make_history: History
) -> None:
    plan = sample(counter, make_history)
    system = [m for m in plan.messages if m.role == "system"]
    assert [m.layer for m in system] == [Layer.SYSTEM, Layer.MEMORY, Layer.SUMMARY]
    first_user = next(m for m in plan.messages if m.role == "user")

    placed = place(plan, PlacementChoice.AUTO, True, counter)

    assert placed.system_placement is SystemPlacement.FIRST_USER
    sent = placed.request_messages()
    roles = [m.role for m in plan.messages if m.role != "system"]
    assert [m["role"] for m in sent] == roles
    opening = sent[0]["content"]
    # The model can tell the context from the message: each under its own heading, the
    # message alone and last.
    assert opening.startswith(f"{CONTEXT_OPENING}\n\n")
    context, heading, message = opening.partition(f"\n\n{CONTEXT_CLOSING}\n\n")
    assert heading
    assert message == first_user.content
    for moved in system:
        assert moved.content in context
    assert context == "\n\n".join([CONTEXT_OPENING, *(m.content for m in system)])
    merged = placed.messages[0]
    assert isinstance(merged, PlanMessage)
    assert merged.ref == first_user.ref
    assert [part.ref for part in merged.parts] == [*(m.ref for m in system), first_user.ref]
    # The markers cost tokens, told on the first moved layer; the request adds up.
    assert (
        placed.tokens == layer_sum(placed) == sum(m.tokens for m in placed.messages) + REPLY_PRIMER
    )
    assert merged.tokens == count_message(counter, "user", merged.content).tokens
    for layer in (Layer.SYSTEM, Layer.MEMORY, Layer.SUMMARY):
        hints = placed.layer(layer).hints
        assert any(
            h.startswith(f"sent at the start of the first user message ({first_user.ref})")
            for h in hints
        ), hints


def test_auto_leaves_a_server_that_keeps_system_messages_alone(
    counter: TokenCounter, make_history: History
) -> None:
    plan = sample(counter, make_history)
    assert place(plan, PlacementChoice.AUTO, False, counter) == plan


def test_user_moves_them_whatever_the_server(counter: TokenCounter, make_history: History) -> None:
    placed = place(sample(counter, make_history), PlacementChoice.USER, False, counter)
    assert placed.system_placement is SystemPlacement.FIRST_USER
    assert all(m["role"] != "system" for m in placed.request_messages())
    assert 'as [context] system_placement = "user" asks' in placed.layer(Layer.MEMORY).hints[-1]


def test_keeping_the_system_role_on_such_a_server_marks_the_layers_as_not_reaching_it(
    counter: TokenCounter, make_history: History
) -> None:
    plan = sample(counter, make_history)
    kept = place(plan, PlacementChoice.SYSTEM, True, counter)
    assert kept.system_placement is SystemPlacement.DROPPED
    assert kept.messages == plan.messages
    for layer in (Layer.SYSTEM, Layer.MEMORY, Layer.SUMMARY):
        assert (
            kept.layer(layer)
            .notes[-1]
            .startswith("not reaching the model: the server's chat template drops system messages")
        )
    assert kept.layer(Layer.WORKING).notes == plan.layer(Layer.WORKING).notes


def test_a_conversation_that_starts_with_a_reply_gets_an_opening_message_of_its_own(
    counter: TokenCounter, make_history: History
) -> None:
    history = make_history(["Hi there.", "Hello.", "Which port?", "Port 5432."])[1:]
    plan = plan_of(counter, history)
    placed = place(plan, PlacementChoice.AUTO, True, counter)
    sent = placed.request_messages()
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "user"]
    assert sent[0]["content"].startswith(f"{CONTEXT_OPENING}\n\n")
    assert CONTEXT_CLOSING not in sent[0]["content"]  # no message follows in it
    assert sent[1]["content"] == "Hello."
    assert placed.tokens == layer_sum(placed)


def test_a_placed_plan_survives_storage_and_comes_apart_again(
    counter: TokenCounter, make_history: History
) -> None:
    plan = sample(counter, make_history)
    placed = place(plan, PlacementChoice.AUTO, True, counter)
    assert ContextPlan.from_dict(placed.to_dict()).to_dict() == placed.to_dict()
    assert placed.to_dict()["system_placement"] == "first-user"
    assert "system_placement" not in plan.to_dict()
    back = unplaced(placed)
    assert back.request_messages() == plan.request_messages()
    assert back.tokens == plan.tokens
    assert [layer.tokens for layer in back.layers] == [layer.tokens for layer in plan.layers]


@pytest.mark.parametrize("without", ["memory", "memory:2", "summary"])
def test_asking_again_without_a_layer_edits_the_moved_content(
    counter: TokenCounter, make_history: History, without: str
) -> None:
    plan = sample(counter, make_history)
    placed = place(plan, PlacementChoice.AUTO, True, counter)
    variant = counterfactual_plan(placed, Change(without=(without,)), counter=counter)
    expected = place(
        counterfactual_plan(plan, Change(without=(without,)), counter=counter),
        PlacementChoice.AUTO,
        True,
        counter,
    )
    assert variant.request_messages() == expected.request_messages()
    assert variant.system_placement is SystemPlacement.FIRST_USER
    assert variant.tokens == layer_sum(variant)


@pytest.mark.parametrize("without", [None, "task", "files"])
def test_the_task_and_the_files_move_with_the_rest_of_the_system_content(
    counter: TokenCounter, make_history: History, without: str | None
) -> None:
    plan = plan_with(
        counter,
        history=make_history(["Where were we?", "At the restore."]),
        task=TaskState("Ship it").with_step("Write tests"),
        files=[attached(counter, 1, "notes.md", "The cluster is pg16-a.")],
    )
    placed = place(plan, PlacementChoice.AUTO, True, counter)
    if without is not None:
        placed = counterfactual_plan(placed, Change(without=(without,)), counter=counter)
    layers = [m.layer for m in plan.messages if m.role == "system"]
    assert layers == [Layer.SYSTEM, Layer.TASK, Layer.FILES]
    sent = placed.request_messages()
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    opening = sent[0]["content"]
    for message in plan.messages:
        if message.role == "system":
            assert (message.content in opening) == (message.layer.value != without)
    assert placed.tokens == layer_sum(placed)
