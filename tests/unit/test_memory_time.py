"""Memory entries that know their source and time: supersession, dates, hypotheses, provenance."""

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.memory import (
    MEMORY_HEADER,
    MemoryDates,
    MemoryEntry,
    MemoryKind,
    Mode,
    Provenance,
    provenance,
    unconfirmed_turns,
)
from ctxchat.core.plan import ContextPlan, Reason
from ctxchat.core.tokens import TokenCounter

NOV_20 = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()
NOV_24_LATE = datetime(2026, 11, 24, 23, 30, tzinfo=UTC).timestamp()


def plan_with(counter: TokenCounter, memory: list[MemoryEntry], **extra: object) -> ContextPlan:
    return assemble_context(
        budget=Budget(8_000, 1_000),
        counter=counter,
        mode=Mode.PERSONALIZATION,
        system_prompt="",
        memory=memory,
        summary=None,
        history=[],
        new_input="Which database?",
        **extra,  # type: ignore[arg-type]
    )


OLD = MemoryEntry(
    1,
    MemoryKind.FACT,
    "The service runs on MySQL 8.",
    key="database",
    created_at=NOV_20,
    superseded_by=2,
    superseded_at=NOV_24_LATE,
)
NEW = MemoryEntry(2, MemoryKind.FACT, "The service runs on PostgreSQL 16.", key="database")


def test_a_superseded_entry_leaves_the_request_with_its_replacement_and_day(
    counter: TokenCounter,
) -> None:
    plan = plan_with(counter, [OLD, NEW])
    layer = plan.layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == ["memory:2"]
    (left,) = layer.left_out
    assert (left.ref, left.reason, left.detail) == (
        "memory:1",
        Reason.SUPERSEDED,
        "superseded by memory:2 on 2026-11-24",
    )
    assert "MySQL" not in plan.messages[0].content
    assert ContextPlan.from_dict(plan.to_dict()) == plan


def test_the_day_of_a_supersession_is_read_in_the_zone_given(counter: TokenCounter) -> None:
    plan = plan_with(counter, [OLD, NEW], zone=timezone(timedelta(hours=3)))
    assert plan.layer(Layer.MEMORY).left_out[0].detail == "superseded by memory:2 on 2026-11-25"


def test_dates_are_off_by_default_and_on_put_a_date_line_and_each_entrys_day(
    counter: TokenCounter,
) -> None:
    entry = MemoryEntry(3, MemoryKind.FACT, "Deploys happen on Fridays.", updated_at=NOV_20)
    undated = plan_with(counter, [entry])
    assert undated.messages[0].content == MEMORY_HEADER + "\n- [fact] Deploys happen on Fridays.\n"

    dated = plan_with(counter, [entry], dates=MemoryDates(date(2026, 11, 25)))
    assert dated.messages[0].content == (
        MEMORY_HEADER + "\n"
        "Today's date: 2026-11-25.\n"
        "- [fact, as of 2026-11-20] Deploys happen on Fridays.\n"
    )
    layer = dated.layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == ["date", "memory:3"]
    assert layer.items[0].label == "today's date: 2026-11-25"
    # The date line is counted like every other item.
    assert layer.tokens == undated.layer(Layer.MEMORY).tokens + layer.items[0].tokens + (
        layer.items[1].tokens - undated.layer(Layer.MEMORY).items[0].tokens
    )
    assert dated.messages[0].tokens == layer.tokens


def test_the_same_inputs_give_the_same_dated_request(counter: TokenCounter) -> None:
    entry = MemoryEntry(3, MemoryKind.FACT, "Deploys happen on Fridays.", updated_at=NOV_20)
    dates = MemoryDates(date(2026, 11, 25))
    assert plan_with(counter, [entry], dates=dates) == plan_with(counter, [entry], dates=dates)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("manual", Provenance("typed by hand")),
        ("message:17", Provenance("pinned from message #17", 17)),
        ("messages:4-9", Provenance("extracted from messages #4–#9", 4)),
        ("messages:7-7", Provenance("extracted from message #7", 7)),
        ("extraction", Provenance("extracted by the model")),
        ("import", Provenance("imported")),
    ],
)
def test_provenance_in_words_and_the_message_to_jump_to(source: str, expected: Provenance) -> None:
    assert provenance(source) == expected


@pytest.mark.parametrize(
    ("kind", "turn", "now", "expected"),
    [
        (MemoryKind.HYPOTHESIS, 10, 39, None),
        (MemoryKind.HYPOTHESIS, 10, 40, 30),
        (MemoryKind.HYPOTHESIS, 10, 75, 65),
        (MemoryKind.FACT, 10, 75, None),
        (MemoryKind.PREFERENCE, 10, 75, None),
    ],
)
def test_a_hypothesis_is_flagged_once_it_waited_the_limit(
    kind: MemoryKind, turn: int, now: int, expected: int | None
) -> None:
    entry = MemoryEntry(1, kind, "The slowdown comes from the ORM.", turn=turn)
    assert unconfirmed_turns(entry, now, 30) == expected


def test_a_superseded_hypothesis_is_never_flagged() -> None:
    entry = MemoryEntry(1, MemoryKind.HYPOTHESIS, "A guess.", turn=0, superseded_by=2)
    assert unconfirmed_turns(entry, 100, 30) is None
