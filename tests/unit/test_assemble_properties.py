"""Invariants of assemble_context over generated conversations (hypothesis): the budget, the
whole input, the newest messages, and an account of every item."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ctxchat.core.assemble import AssemblyOptions, assemble_context
from ctxchat.core.budget import Budget, BudgetShares, Layer
from ctxchat.core.history import HistoryMessage, MessageStatus, SummaryState
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.core.plan import ContextPlan, LeftOut, PlanStatus
from ctxchat.core.tokens import (
    REPLY_PRIMER,
    CachingCounter,
    TokenCounter,
    count_message,
    counter_for_model,
)
from ctxchat.core.working import Selection

COUNTER: TokenCounter = CachingCounter(counter_for_model("gpt-4o"))
CONVERSATION = 7
WORDS = ["deploy", "Postgres", "кэш", "on", "Friday", "the", "schema", "is", "small", "日本"]
RANGE = re.compile(r"messages:(\d+)-(\d+)")

texts = st.lists(st.sampled_from(WORDS), max_size=40).map(" ".join)
statuses = st.sampled_from(list(MessageStatus))


@dataclass(frozen=True)
class Case:
    """One generated call of assemble_context."""

    budget: Budget
    mode: Mode
    system_prompt: str
    memory: list[MemoryEntry]
    summary: SummaryState | None
    history: list[HistoryMessage]
    new_input: str | None
    options: AssemblyOptions

    def plan(self) -> ContextPlan:
        return assemble_context(
            budget=self.budget,
            counter=COUNTER,
            mode=self.mode,
            system_prompt=self.system_prompt,
            memory=self.memory,
            summary=self.summary,
            history=self.history,
            new_input=self.new_input,
            conversation_id=CONVERSATION,
            options=self.options,
        )


@st.composite
def shares(draw: st.DrawFn) -> BudgetShares:
    parts = [draw(st.integers(0, 100)) for _ in range(4)]
    whole = sum(parts) or 1
    system, memory, summary, working = (part / whole for part in parts)
    return BudgetShares(system, memory, summary, working)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    window = draw(st.integers(20, 3_000))
    budget = Budget(window, draw(st.integers(0, window - 1)), draw(shares()))
    contents = draw(st.lists(st.tuples(texts, statuses), max_size=30))
    history = []
    for index, (content, status) in enumerate(contents):
        role = "user" if index % 2 == 0 else "assistant"
        tokens = count_message(COUNTER, role, content).tokens
        history.append(HistoryMessage(index + 1, role, content, tokens, status))
    summary = None
    if draw(st.booleans()) and history:
        last = draw(st.integers(1, len(history)))
        summary = SummaryState(draw(st.integers(1, 5)), draw(texts), 1, last)
    memory = [
        MemoryEntry(
            number,
            draw(st.sampled_from(list(MemoryKind))),
            draw(texts.filter(bool)),
            pinned=draw(st.booleans()),
            importance=draw(st.integers(1, 10)),
            conversation_id=draw(st.sampled_from([None, CONVERSATION])),
            enabled=draw(st.booleans()),
        )
        for number in range(1, draw(st.integers(0, 8)) + 1)
    ]
    options = AssemblyOptions(draw(st.integers(0, 12)), draw(st.sampled_from(list(Selection))))
    return Case(
        budget,
        draw(st.sampled_from(list(Mode))),
        draw(texts),
        memory,
        summary,
        history,
        draw(st.none() | texts),
        options,
    )


# The same examples on every run: a failure here is a property broken, not a new draw.
PROPERTY = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

# Short questions with empty replies between them, and room for the newest two messages.
GAP = Case(
    Budget(20, 0, BudgetShares(0.0, 0.0, 0.0, 0.0)),
    Mode.PERSONALIZATION,
    "deploy",
    [],
    None,
    [
        HistoryMessage(1, "user", "", 4),
        HistoryMessage(2, "assistant", "", 4),
        HistoryMessage(3, "user", "", 4),
        HistoryMessage(4, "assistant", "", 4),
        HistoryMessage(5, "user", "", 4),
        HistoryMessage(6, "assistant", "deploy", 5),
    ],
    None,
    AssemblyOptions(0, Selection.RECENCY),
)


@PROPERTY
@given(cases())
def test_a_plan_never_exceeds_its_budget(case: Case) -> None:
    plan = case.plan()
    sent = sum(message.tokens for message in plan.messages)
    assert plan.tokens == sum(layer.tokens for layer in plan.layers)
    if plan.status is PlanStatus.OK:
        assert plan.tokens <= plan.total_budget
        assert sent + REPLY_PRIMER == plan.tokens  # what is counted is what is sent
        assert plan.over_by == 0
    else:  # nothing is sent, and the plan says by how much it is over
        assert plan.messages == ()
        assert plan.over_by == plan.tokens - plan.total_budget > 0


@PROPERTY
@given(cases())
def test_the_input_is_always_whole(case: Case) -> None:
    plan = case.plan()
    inputs = [message for message in plan.messages if message.layer is Layer.INPUT]
    if case.new_input is None or plan.status is PlanStatus.OVER_BUDGET:
        assert inputs == []
        return
    assert plan.messages[-1] is inputs[0]
    assert (inputs[0].role, inputs[0].content) == ("user", case.new_input)
    assert inputs[0].tokens == count_message(COUNTER, "user", case.new_input).tokens


@PROPERTY
@given(cases())
def test_the_newest_min_recent_messages_are_kept_when_they_fit(case: Case) -> None:
    plan = case.plan()
    if plan.status is PlanStatus.OVER_BUDGET:
        return
    covered = case.summary.last_id if case.summary is not None else 0
    candidates = [m for m in case.history if m.id > covered and m.sendable]
    recent = (
        candidates[len(candidates) - case.options.min_recent :] if case.options.min_recent else []
    )
    working = plan.layer(Layer.WORKING)
    # What the other layers left for working memory.
    available = plan.total_budget - (plan.tokens - working.tokens)
    sent = {message.ref for message in plan.messages}
    if sum(message.tokens for message in recent) <= available:
        assert {message.ref for message in recent} <= sent
    else:
        assert any(warning.startswith("Only ") for warning in plan.warnings)


def _covers(left: LeftOut, message: HistoryMessage) -> bool:
    if left.ref == message.ref:
        return True
    matched = RANGE.fullmatch(left.ref)
    return matched is not None and int(matched[1]) <= message.id <= int(matched[2])


@PROPERTY
@given(cases())
def test_every_item_is_sent_or_left_out_with_a_reason(case: Case) -> None:
    plan = case.plan()
    if plan.status is PlanStatus.OVER_BUDGET:
        return
    sent = [message.ref for message in plan.messages]
    assert len(sent) == len(set(sent))  # nothing is sent twice
    working = plan.layer(Layer.WORKING)
    for message in case.history:
        listed = [left for left in working.left_out if _covers(left, message)]
        assert (message.ref in sent) != bool(listed), message  # one or the other
        assert all(left.reason and left.detail for left in listed)
    history_sent = [int(ref.split(":")[1]) for ref in sent if ref.startswith("message:")]
    assert history_sent == sorted(history_sent)  # in the order they were written

    memory = plan.layer(Layer.MEMORY)
    chosen = {item.ref for item in memory.items}
    dropped = {left.ref for left in memory.left_out}
    assert chosen.isdisjoint(dropped)
    assert chosen | dropped == {entry.ref for entry in case.memory}
    assert all(left.reason and left.detail for left in memory.left_out)
    assert ("memory" in sent) == bool(chosen)

    if case.summary is not None and case.summary.text.strip():
        layer = plan.layer(Layer.SUMMARY)
        refs = [item.ref for item in layer.items] + [left.ref for left in layer.left_out]
        assert refs == [case.summary.ref]
        assert (case.summary.ref in sent) == bool(layer.items)


@PROPERTY
@given(cases())
@example(GAP)
def test_each_message_left_out_is_listed_once(case: Case) -> None:
    plan = case.plan()
    if plan.status is PlanStatus.OVER_BUDGET:
        return
    working = plan.layer(Layer.WORKING)
    for message in case.history:
        assert len([left for left in working.left_out if _covers(left, message)]) <= 1
