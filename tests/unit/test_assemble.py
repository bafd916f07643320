"""Assembling the context plan: layers, modes, budgets and what is left out."""

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget, BudgetShares, Layer
from ctxchat.core.history import HistoryMessage, MessageStatus, SummaryState
from ctxchat.core.memory import MEMORY_HEADER, MemoryEntry, MemoryKind, Mode, render_memory
from ctxchat.core.plan import ContextPlan, LayerPlan, PlanStatus, Reason
from ctxchat.core.tokens import REPLY_PRIMER, TokenCounter, count_message

History = Callable[[list[str]], list[HistoryMessage]]

FIVE_ENTRIES = [
    MemoryEntry(1, MemoryKind.FACT, "The service runs on PostgreSQL 16.", importance=6),
    MemoryEntry(2, MemoryKind.CONSTRAINT, "Everything must work offline.", importance=9),
    MemoryEntry(3, MemoryKind.PREFERENCE, "Prefers short answers.", pinned=True),
    MemoryEntry(4, MemoryKind.HYPOTHESIS, "The slowdown comes from the ORM.", importance=7),
    MemoryEntry(5, MemoryKind.FACT, "Deploys happen on Fridays.", importance=3, updated_at=10.0),
]


def plan_for(counter: TokenCounter, **overrides: Any) -> ContextPlan:
    arguments: dict[str, Any] = {
        "budget": Budget(8_000, 1_000),
        "counter": counter,
        "mode": Mode.PERSONALIZATION,
        "system_prompt": "You are a careful assistant.",
        "memory": [],
        "summary": None,
        "history": [],
        "new_input": "What did we decide?",
    }
    arguments.update(overrides)
    return assemble_context(**arguments)


def test_personalization_mode_includes_every_kind_labelled(counter: TokenCounter) -> None:
    plan = plan_for(counter, memory=FIVE_ENTRIES)
    memory_message = plan.messages[1]
    assert memory_message.layer is Layer.MEMORY
    assert memory_message.content == (
        MEMORY_HEADER + "\n"
        "- [preference: the user's taste or belief, not a verified fact] Prefers short answers.\n"
        "- [constraint] Everything must work offline.\n"
        "- [hypothesis: unverified, treat as a guess] The slowdown comes from the ORM.\n"
        "- [fact] The service runs on PostgreSQL 16.\n"
        "- [fact] Deploys happen on Fridays.\n"
    )
    layer = plan.layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == [
        "memory:3",
        "memory:2",
        "memory:4",
        "memory:1",
        "memory:5",
    ]
    assert layer.left_out == ()
    # Line counts summed equal the whole message counted at once.
    assert layer.tokens == count_message(counter, "system", memory_message.content).tokens
    assert layer.tokens == 91


def test_objective_mode_keeps_only_facts_and_constraints(counter: TokenCounter) -> None:
    plan = plan_for(counter, memory=FIVE_ENTRIES, mode=Mode.OBJECTIVE)
    layer = plan.layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == ["memory:2", "memory:1", "memory:5"]
    assert [(o.ref, o.reason, o.detail) for o in layer.left_out] == [
        ("memory:3", Reason.MODE, "excluded: objective mode leaves out preferences"),
        ("memory:4", Reason.MODE, "excluded: objective mode leaves out hypotheses"),
    ]
    assert plan.messages[1].content == render_memory(
        [FIVE_ENTRIES[1], FIVE_ENTRIES[0], FIVE_ENTRIES[4]]
    )
    assert layer.tokens == 50
    assert plan_for(counter, memory=FIVE_ENTRIES).tokens - plan.tokens == 91 - 50


def test_disabled_and_other_conversation_entries(counter: TokenCounter) -> None:
    entries = [
        MemoryEntry(1, MemoryKind.FACT, "Global fact."),
        MemoryEntry(2, MemoryKind.FACT, "Only in conversation 7.", conversation_id=7),
        MemoryEntry(3, MemoryKind.FACT, "Only in conversation 8.", conversation_id=8),
        MemoryEntry(4, MemoryKind.FACT, "Switched off.", enabled=False),
    ]
    layer = plan_for(counter, memory=entries, conversation_id=7).layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == ["memory:1", "memory:2"]
    assert [(o.ref, o.reason) for o in layer.left_out] == [("memory:4", Reason.DISABLED)]


def test_an_entry_switched_off_in_one_conversation_stays_on_in_the_others(
    counter: TokenCounter,
) -> None:
    entries = [
        MemoryEntry(1, MemoryKind.FACT, "Global fact.", off_in=frozenset({7})),
        MemoryEntry(2, MemoryKind.FACT, "Another global fact."),
        # Only a shared entry is switched off: the conversation's own is not, whatever it holds.
        MemoryEntry(3, MemoryKind.FACT, "Own fact.", conversation_id=7, off_in=frozenset({7})),
    ]
    here = plan_for(counter, memory=entries, conversation_id=7)
    layer = here.layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == ["memory:2", "memory:3"]
    assert [(o.ref, o.reason, o.detail) for o in layer.left_out] == [
        ("memory:1", Reason.DISABLED, "switched off for this conversation")
    ]
    assert "Global fact." not in here.messages[1].content
    elsewhere = plan_for(counter, memory=entries, conversation_id=8).layer(Layer.MEMORY)
    assert [item.ref for item in elsewhere.items] == ["memory:1", "memory:2"]
    unsaved = plan_for(counter, memory=entries).layer(Layer.MEMORY)
    assert [item.ref for item in unsaved.items] == ["memory:1", "memory:2"]
    # The budget follows: switched on again, the layer costs that entry's line more.
    on_again = [replace(entries[0], off_in=frozenset()), *entries[1:]]
    layer_on = plan_for(counter, memory=on_again, conversation_id=7).layer(Layer.MEMORY)
    assert layer_on.tokens - layer.tokens == layer_on.items[0].tokens == 7


def test_a_projects_entries_go_to_its_conversations_only(counter: TokenCounter) -> None:
    entries = [
        MemoryEntry(1, MemoryKind.FACT, "Global fact."),
        MemoryEntry(2, MemoryKind.FACT, "Garden fact.", project_id=3, project="Garden"),
        MemoryEntry(3, MemoryKind.FACT, "Trip fact.", project_id=4, project="Trip"),
        MemoryEntry(4, MemoryKind.FACT, "Own fact.", conversation_id=7),
    ]
    layer = plan_for(counter, memory=entries, conversation_id=7, project_id=3).layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == ["memory:1", "memory:2", "memory:4"]
    assert layer.hints == (
        "memory:2: in as entries of project “Garden”, which this conversation is in",
    )
    alone = plan_for(counter, memory=entries, conversation_id=7).layer(Layer.MEMORY)
    assert [item.ref for item in alone.items] == ["memory:1", "memory:4"]
    assert alone.hints == ()


def test_memory_over_its_share_is_dropped_by_priority(counter: TokenCounter) -> None:
    entries = [
        MemoryEntry(i, MemoryKind.FACT, f"Fact number {i} " + "word " * 30, importance=10 - i)
        for i in range(1, 6)
    ]
    plan = plan_for(counter, memory=entries, budget=Budget(2_000, 1_000))
    layer = plan.layer(Layer.MEMORY)
    assert layer.budget == 100
    assert layer.tokens <= 100
    assert [item.ref for item in layer.items] == ["memory:1", "memory:2"]
    assert [(o.ref, o.detail) for o in layer.left_out] == [
        (f"memory:{i}", "dropped: over the memory budget") for i in (3, 4, 5)
    ]


def test_unused_shares_flow_to_working_memory(counter: TokenCounter, make_history: History) -> None:
    history = make_history(["word " * 95] * 40)  # 100 tokens each with overhead
    assert {m.tokens for m in history} == {100}
    plan = plan_for(counter, history=history, budget=Budget(4_000, 1_000))
    working = plan.layer(Layer.WORKING)
    assert working.budget == 1_800
    fixed = plan.layer(Layer.SYSTEM).tokens + plan.layer(Layer.INPUT).tokens
    # No memory and no summary: working takes everything but the fixed costs.
    assert working.tokens == (3_000 - fixed) // 100 * 100
    assert len(working.items) == 29
    assert plan.tokens == fixed + working.tokens
    assert plan.tokens <= plan.total_budget


def test_min_recent_is_kept_when_older_messages_are_huge(
    counter: TokenCounter, make_history: History
) -> None:
    texts = ["huge " * 8_000, "huge " * 8_000] + [f"short message {i}" for i in range(12)]
    history = make_history(texts)
    plan = plan_for(counter, history=history, options=AssemblyOptions(min_recent=10))
    working = plan.layer(Layer.WORKING)
    assert [item.ref for item in working.items] == [f"message:{i}" for i in range(3, 15)]
    assert [(o.ref, o.reason, o.label) for o in working.left_out] == [
        ("messages:1-2", Reason.BUDGET, "2 messages")
    ]
    assert working.left_out[0].tokens == history[0].tokens + history[1].tokens
    assert plan.status is PlanStatus.OK


def test_recent_messages_that_cannot_fit_warn(counter: TokenCounter, make_history: History) -> None:
    history = make_history(["huge " * 8_000] * 3)
    plan = plan_for(counter, history=history, options=AssemblyOptions(min_recent=10))
    assert plan.layer(Layer.WORKING).items == ()
    assert plan.warnings == (
        "Only 0 of the last 10 messages fit the budget; summarize or shorten them.",
    )
    assert plan.tokens <= plan.total_budget


def test_input_larger_than_the_budget(counter: TokenCounter) -> None:
    plan = plan_for(counter, new_input="token " * 9_000, budget=Budget(8_000, 1_000))
    input_tokens = count_message(counter, "user", "token " * 9_000).tokens
    system_tokens = count_message(counter, "system", "You are a careful assistant.").tokens
    over = input_tokens + system_tokens + REPLY_PRIMER - 7_000
    assert plan.status is PlanStatus.OVER_BUDGET
    assert plan.over_by == over == 2_018
    assert plan.messages == ()
    assert plan.request_messages() == []
    assert plan.warnings == ("The message is 2,018 tokens over the budget of 7,000 tokens.",)


def test_summary_layer_and_covered_messages(counter: TokenCounter, make_history: History) -> None:
    history = make_history([f"message {i}" for i in range(1, 21)])
    summary = SummaryState(3, "We chose PostgreSQL. Deploys are on Fridays.", 1, 12)
    plan = plan_for(counter, history=history, summary=summary)
    assert plan.messages[1].layer is Layer.SUMMARY
    assert plan.messages[1].ref == "summary:v3"
    assert plan.messages[1].content.endswith("We chose PostgreSQL. Deploys are on Fridays.")
    working = plan.layer(Layer.WORKING)
    assert [item.ref for item in working.items] == [f"message:{i}" for i in range(13, 21)]
    assert [(o.ref, o.reason, o.detail) for o in working.left_out] == [
        ("messages:1-12", Reason.SUMMARIZED, "in summary v3")
    ]
    assert plan.layer(Layer.SUMMARY).items[0].label == "v3, messages 1-12"


def test_over_long_summary_is_cut_at_a_sentence(counter: TokenCounter) -> None:
    text = " ".join(f"Sentence number {i} says something." for i in range(200))
    summary = SummaryState(1, text, 1, 5)
    plan = plan_for(counter, summary=summary, budget=Budget(2_000, 1_000))
    layer = plan.layer(Layer.SUMMARY)
    assert layer.budget == 200
    assert 150 < layer.tokens <= 200
    content = plan.messages[1].content
    assert content.endswith("says something.")
    assert layer.notes[0].startswith("cut at a sentence boundary to fit its share (")


def test_failed_replies_are_not_sent(counter: TokenCounter) -> None:
    history = [
        HistoryMessage(1, "user", "Hi", 6),
        HistoryMessage(2, "assistant", "", 4, MessageStatus.FAILED),
        HistoryMessage(3, "user", "Hi again", 7),
        HistoryMessage(4, "assistant", "Partial ans", 8, MessageStatus.INTERRUPTED),
    ]
    plan = plan_for(counter, history=history)
    working = plan.layer(Layer.WORKING)
    assert [i.ref for i in working.items] == ["message:1", "message:3", "message:4"]
    assert [(o.ref, o.detail) for o in working.left_out] == [
        ("message:2", "excluded: failed reply")
    ]


def test_an_empty_finished_reply_is_excluded_as_empty(counter: TokenCounter) -> None:
    history = [
        HistoryMessage(1, "user", "Hi", 6),
        HistoryMessage(2, "assistant", "", 4),
    ]
    working = plan_for(counter, history=history).layer(Layer.WORKING)
    assert [(o.ref, o.detail) for o in working.left_out] == [("message:2", "excluded: empty reply")]


def test_a_range_dropped_over_budget_never_spans_a_failed_reply(counter: TokenCounter) -> None:
    history = [
        HistoryMessage(i, "user" if i % 2 else "assistant", "word " * 40, 300) for i in (1, 2)
    ]
    history.append(HistoryMessage(3, "user", "", 4, MessageStatus.FAILED))
    history += [
        HistoryMessage(i, "assistant" if i % 2 else "user", "word " * 40, 300) for i in (4, 5)
    ]
    history += [HistoryMessage(6, "user", "last", 5)]
    plan = plan_for(
        counter, history=history, budget=Budget(300, 0), options=AssemblyOptions(min_recent=1)
    )
    working = plan.layer(Layer.WORKING)
    assert [o.ref for o in working.left_out] == ["messages:1-2", "messages:4-5", "message:3"]


def test_request_messages_are_in_layer_order(counter: TokenCounter, make_history: History) -> None:
    plan = plan_for(
        counter,
        memory=FIVE_ENTRIES[:1],
        summary=SummaryState(1, "Earlier talk.", 1, 2),
        history=make_history(["a", "b", "c", "d"]),
    )
    assert [(m.role, m.layer.value) for m in plan.messages] == [
        ("system", "system"),
        ("system", "memory"),
        ("system", "summary"),
        ("user", "working"),
        ("assistant", "working"),
        ("user", "input"),
    ]
    assert plan.request_messages()[-1] == {"role": "user", "content": "What did we decide?"}
    assert sum(m.tokens for m in plan.messages) + REPLY_PRIMER == plan.tokens
    assert sum(layer.tokens for layer in plan.layers) == plan.tokens


def test_preview_without_input(counter: TokenCounter) -> None:
    plan = plan_for(counter, new_input=None)
    assert [m.layer for m in plan.messages] == [Layer.SYSTEM]
    assert plan.layer(Layer.INPUT).tokens == REPLY_PRIMER


def test_plan_is_deterministic_and_round_trips(
    counter: TokenCounter, make_history: History
) -> None:
    kwargs = {
        "memory": FIVE_ENTRIES,
        "summary": SummaryState(2, "Summary.", 1, 4),
        "history": make_history([f"m{i}" for i in range(30)]),
    }
    first = plan_for(counter, **kwargs)
    second = plan_for(counter, **kwargs)
    assert json.dumps(first.to_dict()) == json.dumps(second.to_dict())
    restored = ContextPlan.from_dict(json.loads(json.dumps(first.to_dict())))
    assert restored.to_dict() == first.to_dict()
    assert restored.request_messages() == first.request_messages()


@pytest.mark.parametrize("selection", ["recency", "scored"])
def test_working_selection_respects_budget(
    counter: TokenCounter, make_history: History, selection: str
) -> None:
    from ctxchat.core.working import Selection

    history = make_history([("word " * (10 + i % 40)) for i in range(300)])
    plan = plan_for(
        counter,
        history=history,
        budget=Budget(4_000, 500, BudgetShares()),
        options=AssemblyOptions(min_recent=10, selection=Selection(selection)),
    )
    working = plan.layer(Layer.WORKING)
    refs = [item.ref for item in working.items]
    assert refs[-10:] == [f"message:{i}" for i in range(291, 301)]
    ids = [int(ref.split(":")[1]) for ref in refs]
    assert ids == sorted(ids)
    assert plan.tokens <= plan.total_budget
    assert sum(o.tokens for o in working.left_out) + working.tokens == sum(
        m.tokens for m in history
    )


def test_hints_round_trip_and_plans_stored_before_them_still_load(counter: TokenCounter) -> None:
    plan = plan_for(counter)
    recall = LayerPlan(Layer.RECALL, 100, 0.1, 0, hints=("newer first",))
    layers = tuple(recall if lp.layer is Layer.RECALL else lp for lp in plan.layers)
    with_hint = replace(plan, layers=layers)
    data = json.loads(json.dumps(with_hint.to_dict()))
    assert ContextPlan.from_dict(data).layer(Layer.RECALL).hints == ("newer first",)
    # A plan saved before hints existed has no "hints" key on any layer.
    stored = plan.to_dict()
    assert all("hints" not in layer for layer in stored["layers"])
    assert all(lp.hints == () for lp in ContextPlan.from_dict(stored).layers)


@pytest.mark.parametrize(
    ("role", "content", "sendable"),
    [
        ("assistant", "", False),
        ("assistant", " \n\t", False),
        ("assistant", "\u2003\u00a0", False),  # other whitespace: still nothing to send
        ("assistant", "  an answer  ", True),
        ("assistant", "\u2003x", True),
        ("user", "", True),  # the user's turn is always sent
    ],
)
def test_a_reply_of_whitespace_alone_is_not_sent(role: str, content: str, sendable: bool) -> None:
    assert HistoryMessage(1, role, content, 5).sendable is sendable
    failed = HistoryMessage(1, role, content or "text", 5, MessageStatus.FAILED)
    assert failed.sendable is False
