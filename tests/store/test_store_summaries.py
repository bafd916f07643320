"""Summary versions: numbering, the version in force, rollback, and the core's view of it."""

from collections.abc import Callable
from typing import Any

import pytest

from ctxchat.core.history import SummaryState
from ctxchat.core.summary import SummaryStrategy
from ctxchat.store import InvalidValue, NotFound, Store, StoredMessage, SummaryVersion

Say = Callable[[int, str, str], StoredMessage]


def test_versions_number_up_and_the_newest_is_in_force(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()  # 1000
    ids = [say(conversation.id, "user", f"m{i}").id for i in range(4)]  # 1001-1004
    first = store.summaries.add_summary(
        conversation.id,
        text="m0 and m1",
        first_message_id=ids[0],
        last_message_id=ids[1],
        strategy=SummaryStrategy.SUMMARIZE,
        model="gpt-4o-mini",
        tokens=12,
    )  # 1005
    assert first == SummaryVersion(
        id=1,
        conversation_id=conversation.id,
        version=1,
        text="m0 and m1",
        first_message_id=ids[0],
        last_message_id=ids[1],
        strategy=SummaryStrategy.SUMMARIZE,
        model="gpt-4o-mini",
        tokens=12,
        edited=False,
        note="",
        created_at=1005.0,
    )
    second = store.summaries.add_summary(
        conversation.id,
        text="m0 to m3, edited",
        first_message_id=ids[0],
        last_message_id=ids[3],
        strategy="semantic",
        model=None,
        tokens=20,
        edited=True,
        note="fixed a name",
    )
    assert second.version == 2
    assert store.summaries.summaries(conversation.id) == [first, second]
    assert store.summaries.active_summary(conversation.id) == second
    assert second.state() == SummaryState(2, "m0 to m3, edited", ids[0], ids[3], edited=True)
    assert store.summaries.get_summary(first.id) == first


def test_rollback_moves_the_mark_and_keeps_every_version(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()
    ids = [say(conversation.id, "user", f"m{i}").id for i in range(2)]
    versions = [
        store.summaries.add_summary(
            conversation.id,
            text=f"v{n}",
            first_message_id=ids[0],
            last_message_id=ids[1],
            strategy="keyvalue",
            model="m",
            tokens=1,
        )
        for n in (1, 2)
    ]
    store.summaries.activate_summary(conversation.id, versions[0].id)
    assert store.summaries.active_summary(conversation.id) == versions[0]
    store.summaries.activate_summary(conversation.id, None)
    assert store.summaries.active_summary(conversation.id) is None
    assert len(store.summaries.summaries(conversation.id)) == 2


def test_summaries_are_checked(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()
    other = store.conversations.create_conversation()
    mine = say(conversation.id, "user", "a").id
    theirs = say(other.id, "user", "b").id
    common: dict[str, Any] = {"model": None, "tokens": 1, "text": "t"}
    with pytest.raises(InvalidValue) as caught:
        store.summaries.add_summary(
            conversation.id, first_message_id=mine, last_message_id=mine, strategy="poem", **common
        )
    assert str(caught.value) == (
        "Unknown summary strategy 'poem'; use summarize, semantic, keyvalue."
    )
    with pytest.raises(InvalidValue) as order:
        store.summaries.add_summary(
            conversation.id, first_message_id=5, last_message_id=4, strategy="semantic", **common
        )
    assert str(order.value) == (
        "A summary cannot cover messages 5 to 4: the first comes after the last."
    )
    with pytest.raises(InvalidValue) as foreign:
        store.summaries.add_summary(
            conversation.id,
            first_message_id=mine,
            last_message_id=theirs,
            strategy="semantic",
            **common,
        )
    assert str(foreign.value) == f"Message {theirs} is not in conversation {conversation.id}."
    summary = store.summaries.add_summary(
        other.id, first_message_id=theirs, last_message_id=theirs, strategy="semantic", **common
    )
    with pytest.raises(InvalidValue):
        store.summaries.activate_summary(conversation.id, summary.id)
    with pytest.raises(NotFound):
        store.summaries.activate_summary(conversation.id, 999)
    assert store.summaries.summaries(conversation.id) == []


def test_a_held_summary_waits_out_of_force_until_settled(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation().id
    ids = [say(conversation, "user", f"m{i}").id for i in range(4)]

    def add(text: str, last: int, **options: Any) -> SummaryVersion:
        return store.summaries.add_summary(
            conversation,
            text=text,
            first_message_id=ids[0],
            last_message_id=last,
            strategy=SummaryStrategy.SUMMARIZE,
            model="m",
            tokens=3,
            **options,
        )

    in_force = add("m0 and m1", ids[1])
    held = add("nonsense", ids[2], waiting=True, faults=["repeats its own instructions"])
    assert store.summaries.active_summary(conversation) == in_force
    assert store.summaries.waiting_summary(conversation) == held and held.flagged
    # A newer one held replaces it: it folds the same turns and more.
    newer = add("nonsense again", ids[3], waiting=True)
    assert [v.version for v in store.summaries.summaries(conversation)] == [1, 3]
    assert store.summaries.waiting_summary(conversation) == newer
    # Rejected: gone, never having been in force.
    assert store.summaries.settle_waiting(newer.id, accepted=False) is None
    assert store.summaries.waiting_summary(conversation) is None
    assert store.summaries.active_summary(conversation) == in_force
    # Accepted: in force, reviewed.
    again = add("m0 to m2", ids[2], waiting=True, faults=["invents “200”"])
    accepted = store.summaries.settle_waiting(again.id, accepted=True)
    assert accepted is not None and not accepted.waiting and accepted.reviewed
    assert store.summaries.active_summary(conversation) == accepted
    with pytest.raises(InvalidValue):
        store.summaries.settle_waiting(accepted.id, accepted=True)
    # One put in force by hand makes a held one stale: it goes.
    stale = add("held", ids[3], waiting=True)
    add("by hand", ids[3])
    assert stale.id not in [v.id for v in store.summaries.summaries(conversation)]
