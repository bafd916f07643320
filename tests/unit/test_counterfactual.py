"""Counterfactual plans: a stored plan with one change, the rest byte-identical."""

from collections.abc import Callable, Sequence
from dataclasses import replace

import pytest

from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget, BudgetShares, Layer
from ctxchat.core.counterfactual import (
    Change,
    CounterfactualError,
    counterfactual_plan,
    parse_without,
    refs_of,
)
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode, render_entry
from ctxchat.core.plan import ContextPlan, Reason
from ctxchat.core.recall import RecallHit
from ctxchat.core.task import TaskState
from ctxchat.core.tokens import TokenCounter

from .plans import plan_with

History = Callable[[list[str]], list[HistoryMessage]]

MEMORY = [
    MemoryEntry(1, MemoryKind.FACT, "The project is called ctxchat.", pinned=True),
    MemoryEntry(2, MemoryKind.PREFERENCE, "Likes short answers."),
    MemoryEntry(3, MemoryKind.CONSTRAINT, "Python 3.11 only."),
    MemoryEntry(4, MemoryKind.HYPOTHESIS, "Probably deploys on Fridays."),
]


def plan_of(
    counter: TokenCounter,
    history: list[HistoryMessage],
    *,
    memory: Sequence[MemoryEntry] = MEMORY,
    mode: Mode = Mode.PERSONALIZATION,
    summary: SummaryState | None = None,
    recall: Sequence[RecallHit] = (),
) -> ContextPlan:
    return assemble_context(
        budget=Budget(8_000, 1_000, BudgetShares(summary=0.1, recall=0.1)),
        counter=counter,
        mode=mode,
        system_prompt="You are terse.",
        memory=memory,
        summary=summary,
        history=history,
        new_input="Which database?",
        options=AssemblyOptions(min_recent=4),
        recall=recall,
    )


def contents(plan: ContextPlan) -> list[tuple[str, str]]:
    return [(m.layer.value, m.content) for m in plan.messages]


@pytest.mark.parametrize("left_out", [1, 2, 3, 4])
def test_without_one_memory_entry_is_the_plan_without_that_entry(
    counter: TokenCounter, make_history: History, left_out: int
) -> None:
    history = make_history(["hello", "hi"])
    plan = plan_of(counter, history)
    variant = counterfactual_plan(plan, Change(without=(f"memory:{left_out}",)), counter=counter)
    expected = plan_of(counter, history, memory=[e for e in MEMORY if e.id != left_out])

    assert contents(variant) == contents(expected)
    assert variant.tokens == expected.tokens
    assert variant.layer(Layer.MEMORY).tokens == expected.layer(Layer.MEMORY).tokens
    (gone,) = [o for o in variant.layer(Layer.MEMORY).left_out if o.ref == f"memory:{left_out}"]
    assert (gone.reason, gone.detail) == (Reason.ASKED_WITHOUT, "left out for this variant")
    assert variant.request is None  # the caller builds it with the one request builder


def test_without_every_entry_the_memory_message_goes(
    counter: TokenCounter, make_history: History
) -> None:
    history = make_history(["hello", "hi"])
    plan = plan_of(counter, history)
    variant = counterfactual_plan(
        plan, Change(without=tuple(f"memory:{e.id}" for e in MEMORY)), counter=counter
    )
    assert contents(variant) == contents(plan_of(counter, history, memory=[]))
    assert variant.layer(Layer.MEMORY).tokens == 0


def test_the_other_mode_is_the_plan_in_that_mode(
    counter: TokenCounter, make_history: History
) -> None:
    history = make_history(["hello", "hi"])
    personal = plan_of(counter, history)
    objective = plan_of(counter, history, mode=Mode.OBJECTIVE)

    to_objective = counterfactual_plan(personal, Change(mode=Mode.OBJECTIVE), counter=counter)
    assert contents(to_objective) == contents(objective)
    assert (to_objective.mode, to_objective.tokens) == ("objective", objective.tokens)
    assert {o.ref: o.reason for o in to_objective.layer(Layer.MEMORY).left_out} == {
        "memory:2": Reason.MODE,
        "memory:4": Reason.MODE,
    }

    lines = {e.ref: render_entry(e) for e in MEMORY}
    back = counterfactual_plan(
        objective, Change(mode=Mode.PERSONALIZATION), counter=counter, memory_lines=lines
    )
    assert back.mode == "personalization"
    assert back.tokens == personal.tokens
    assert sorted(back.messages[1].content.splitlines()) == sorted(
        personal.messages[1].content.splitlines()
    )
    assert back.layer(Layer.MEMORY).left_out == ()


def test_personalization_from_a_plan_with_no_memory_message_adds_one(
    counter: TokenCounter, make_history: History
) -> None:
    history = make_history(["hello", "hi"])
    prefs = [MEMORY[1]]
    objective = plan_of(counter, history, memory=prefs, mode=Mode.OBJECTIVE)
    assert [m.layer for m in objective.messages][:2] == [Layer.SYSTEM, Layer.WORKING]
    back = counterfactual_plan(
        objective,
        Change(mode=Mode.PERSONALIZATION),
        counter=counter,
        memory_lines={"memory:2": render_entry(MEMORY[1])},
    )
    assert contents(back) == contents(plan_of(counter, history, memory=prefs))
    assert back.tokens == plan_of(counter, history, memory=prefs).tokens


def test_without_the_summary_only_its_message_goes(
    counter: TokenCounter, make_history: History
) -> None:
    history = make_history(["one", "two", "three", "four", "five", "six", "seven", "eight"])
    summary = SummaryState(2, "Earlier they chose SQLite.", 1, 2)
    plan = plan_of(counter, history, summary=summary)
    for target in ("summary", "summary:v2"):
        variant = counterfactual_plan(plan, Change(without=(target,)), counter=counter)
        assert contents(variant) == [c for c in contents(plan) if c[0] != "summary"]
        assert variant.tokens == plan.tokens - plan.layer(Layer.SUMMARY).tokens
        assert [o.ref for o in variant.layer(Layer.SUMMARY).left_out] == ["summary:v2"]


def test_without_a_recalled_turn_its_line_goes_and_the_rest_stays(
    counter: TokenCounter, make_history: History
) -> None:
    history = make_history(
        [f"message {n} about databases " + "filler " * 300 for n in range(1, 31)]
    )
    hits = [
        RecallHit(
            f"message:{n}", "user", f"message {n} about databases", 9, 1.0, 1.0, 1.0, (), 5, n
        )
        for n in (1, 3)
    ]
    plan = plan_of(counter, history, recall=hits)
    assert refs_of(plan, [Layer.RECALL]) == ["message:1", "message:3"]
    variant = counterfactual_plan(plan, Change(without=("message:1",)), counter=counter)
    expected = plan_of(counter, history, recall=hits[1:])
    assert [c for c in contents(variant) if c[0] == "recall"] == [
        c for c in contents(expected) if c[0] == "recall"
    ]
    assert variant.layer(Layer.RECALL).tokens == expected.layer(Layer.RECALL).tokens

    whole = counterfactual_plan(plan, Change(without=("recall",)), counter=counter)
    assert [c for c in contents(whole) if c[0] == "recall"] == []
    assert whole.tokens == plan.tokens - plan.layer(Layer.RECALL).tokens


def test_an_item_already_left_out_with_its_layer_is_no_error(
    counter: TokenCounter, make_history: History
) -> None:
    plan = plan_of(counter, make_history(["hello", "hi"]))
    both = counterfactual_plan(plan, Change(without=("memory", "memory:3")), counter=counter)
    assert both == counterfactual_plan(plan, Change(without=("memory",)), counter=counter)


def test_an_item_not_in_the_request_is_refused_in_one_line(
    counter: TokenCounter, make_history: History
) -> None:
    plan = plan_of(counter, make_history(["hello", "hi"]))
    with pytest.raises(CounterfactualError, match="memory:99 is not in this reply's request"):
        counterfactual_plan(plan, Change(without=("memory:99",)), counter=counter)
    with pytest.raises(CounterfactualError, match="cannot leave out 'working'"):
        parse_without("working")
    assert parse_without(" Memory:3 ") == "memory:3"


def test_a_change_describes_itself() -> None:
    change = Change(without=("memory:3", "summary"), mode=Mode.OBJECTIVE, model="m")
    assert change.describe() == "without memory:3, summary; in objective mode; to model m"
    assert Change(replay=True, model="m").describe() == "replay of the stored request; to model m"


def test_without_the_task_or_the_files_and_a_plan_from_before_they_existed(
    counter: TokenCounter, make_history: History
) -> None:
    plan = plan_with(
        counter,
        history=make_history(["hello", "hi"]),
        task=TaskState("Ship it").with_step("Write tests"),
    )
    without = counterfactual_plan(plan, Change(without=("task",)), counter=counter)
    assert [m.layer for m in without.messages] == [
        m.layer for m in plan.messages if m.layer is not Layer.TASK
    ]
    assert without.tokens == plan.tokens - plan.layer(Layer.TASK).tokens
    assert [o.reason for o in without.layer(Layer.TASK).left_out] == [Reason.ASKED_WITHOUT] * 2
    older = replace(plan, layers=tuple(lp for lp in plan.layers if lp.layer is not Layer.FILES))
    with pytest.raises(CounterfactualError, match="files is not in this reply's request"):
        counterfactual_plan(older, Change(without=("files",)), counter=counter)
