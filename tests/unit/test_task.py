"""The task layer: the task state as one marked block, its budget, and proposed changes."""

import pytest

from ctxchat.core.budget import Budget, BudgetShares, Layer
from ctxchat.core.extraction import build_extraction_request, parse_proposals
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.core.plan import Reason
from ctxchat.core.task import (
    TASK_CLOSING,
    TASK_OPENING,
    TaskAction,
    TaskError,
    TaskItem,
    TaskProposal,
    TaskState,
    plan_task,
)
from ctxchat.core.tokens import TokenCounter, count_message

from .plans import plan_with

TASK = (
    TaskState("Migrate billing to Postgres 16")
    .with_step("Dump the old database")
    .with_step("Restore into the new cluster")
    .with_step("Switch the DSN")
    .with_done(1)
)
BUDGET = Budget(8_000, 1_000, BudgetShares(task=0.05, working=0.55))


def test_the_task_is_one_marked_block_with_numbered_steps(counter: TokenCounter) -> None:
    layer, text = plan_task(BUDGET, counter, TASK, 350)
    assert text == (
        f"{TASK_OPENING}\n"
        "Goal: Migrate billing to Postgres 16\n"
        "1. [done] Dump the old database\n"
        "2. [pending] Restore into the new cluster\n"
        "3. [pending] Switch the DSN\n"
        f"{TASK_CLOSING}"
    )
    assert [(item.ref, item.tokens, item.label) for item in layer.items] == [
        ("task:goal", 11, "goal: Migrate billing to Postgres 16"),
        ("task:1", 10, "[done] Dump the old database"),
        ("task:2", 11, "[pending] Restore into the new cluster"),
        ("task:3", 10, "[pending] Switch the DSN"),
    ]
    # Line counts summed equal the whole message counted at once.
    assert layer.tokens == count_message(counter, "system", text).tokens == 78
    assert (layer.budget, layer.share) == (350, 0.05)


@pytest.mark.parametrize(
    ("allowance", "tokens", "kept", "dropped"),
    [
        # Done steps go first, then pending ones from the last.
        (70, 68, ["task:goal", "task:2", "task:3"], ["task:1"]),
        (60, 58, ["task:goal", "task:2"], ["task:1", "task:3"]),
        (50, 47, ["task:goal"], ["task:1", "task:2", "task:3"]),
        # Without room for the goal nothing is sent: the task is one left-out item.
        (40, 0, [], ["task"]),
    ],
)
def test_an_over_long_task_gives_up_done_steps_first(
    counter: TokenCounter, allowance: int, tokens: int, kept: list[str], dropped: list[str]
) -> None:
    layer, text = plan_task(BUDGET, counter, TASK, allowance)
    assert layer.tokens == tokens
    assert [item.ref for item in layer.items] == kept
    assert [left.ref for left in layer.left_out] == dropped
    assert all(left.reason is Reason.BUDGET for left in layer.left_out)
    assert (text is None) == (tokens == 0)
    if text is not None:
        assert count_message(counter, "system", text).tokens == tokens


def test_an_empty_task_sends_nothing(counter: TokenCounter) -> None:
    layer, text = plan_task(BUDGET, counter, TaskState(), 350)
    assert (layer.tokens, layer.items, layer.left_out, text) == (0, (), (), None)


def test_the_task_comes_after_summary_and_before_recall_and_working(
    counter: TokenCounter,
) -> None:
    history = [
        HistoryMessage(1, "user", "Old question?", 8),
        HistoryMessage(2, "assistant", "Old answer.", 7),
        HistoryMessage(3, "user", "Where were we?", 9),
        HistoryMessage(4, "assistant", "At the restore.", 9),
    ]
    plan = plan_with(
        counter,
        memory=[MemoryEntry(1, MemoryKind.FACT, "The cluster is pg16-a.")],
        summary=SummaryState(1, "They planned a migration.", 1, 2),
        history=history,
        task=TASK,
    )
    assert [message.layer for message in plan.messages] == [
        Layer.SYSTEM,
        Layer.MEMORY,
        Layer.SUMMARY,
        Layer.TASK,
        Layer.WORKING,
        Layer.WORKING,
        Layer.INPUT,
    ]
    # The task takes its share from working memory only while there is one.
    assert plan.share_notes == ("the conversation has a task: it takes 5% from working",)
    assert plan.shares["task"] == 0.05 and plan.shares["working"] == 0.55
    assert plan.layer(Layer.TASK).tokens == 78
    without = plan_with(counter, history=history, task=TaskState())
    assert without.share_notes == () and without.shares["working"] == 0.6


def test_changes_to_the_state() -> None:
    task = TASK.with_done(1, done=False).without_step(2).with_goal("Go live")
    assert task == TaskState("Go live", (TaskItem("Dump the old database"), TASK.items[2]))
    assert task.pending() == [1, 2]
    assert TaskState().with_step("  two\nlines  ").items[0].text == "two lines"
    with pytest.raises(TaskError, match="there is no step 4: the task has steps 1 to 3"):
        TASK.with_done(4)
    with pytest.raises(TaskError, match="the task has no steps yet"):
        TaskState("Goal").with_done(1)
    with pytest.raises(TaskError, match="a step needs some text"):
        TASK.with_step("   ")


def test_the_model_proposes_task_changes_in_the_same_reply() -> None:
    reply = """[
      {"kind": "fact", "text": "The cluster is pg16-a.", "importance": 6, "message_id": 3},
      {"task": "add", "text": "Run the smoke tests", "message_id": 4},
      {"task": "done", "step": 2, "message_id": 4},
      {"task": "done", "step": 1},
      {"task": "goal", "text": "Migrate billing to Postgres 16"},
      {"task": "rename", "text": "x"}
    ]"""
    result = parse_proposals(reply, valid_ids=[3, 4], task=TASK)
    assert [p.text for p in result.proposals] == ["The cluster is pg16-a."]
    assert result.task_proposals == (
        TaskProposal(TaskAction.ADD, "Run the smoke tests", None, 4),
        TaskProposal(TaskAction.DONE, "Restore into the new cluster", 2, 4),
    )
    assert result.problems == (
        "Entry 4 marks step 1 done, which is not a pending step; skipped.",
        "Entry 5 sets the goal the task already has; skipped.",
        'Entry 6 has task \'rename\', not "goal", "add" or "done"; skipped.',
    )
    applied = TASK
    for proposal in result.task_proposals:
        applied = proposal.applied_to(applied)
    assert [(i.text, i.done) for i in applied.items][-2:] == [
        ("Switch the DSN", False),
        ("Run the smoke tests", False),
    ]
    assert applied.items[1].done
    assert result.task_proposals[1].describe() == "mark step 2 done: Restore into the new cluster"


def test_the_extraction_request_shows_the_task_when_given() -> None:
    messages = [HistoryMessage(3, "user", "Let's restore tonight.", 9)]
    plain = build_extraction_request(messages, [])
    with_task = build_extraction_request(messages, [], TASK)
    assert '"task": "add"' not in plain[0]["content"]
    assert '{"task": "add", "text": "..."}' in with_task[0]["content"]
    assert "Current task: \n" + TASK_OPENING in with_task[1]["content"]
    assert "2. [pending] Restore into the new cluster" in with_task[1]["content"]
    assert (
        "Current task: none yet"
        in build_extraction_request(messages, [], TaskState())[1]["content"]
    )


def test_the_room_kept_for_a_server_that_counts_more_stays_while_the_task_takes_its_share(
    counter: TokenCounter,
) -> None:
    plan = plan_with(counter, budget=Budget(8_000, 1_000, margin=600), task=TASK)
    assert plan.share_notes == ("the conversation has a task: it takes 5% from working",)
    assert plan.total_budget == 6_400
    assert plan.layer(Layer.TASK).budget == 320
