"""Memory entries: add, validate, update, list by scope, delete."""

from typing import Any

import pytest

from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.store import UNSET, InvalidValue, NotFound, Store


def test_add_memory_stores_every_field(store: Store) -> None:
    conversation = store.conversations.create_conversation()  # 1000
    entry = store.memory.add_memory(
        "preference",
        "  Prefers metric units  ",
        key="units",
        pinned=True,
        importance=8,
        conversation_id=conversation.id,
        source="message:4",
        enabled=False,
        tags=["style", " style", "", "units"],
    )  # 1001
    assert entry == MemoryEntry(
        id=1,
        kind=MemoryKind.PREFERENCE,
        text="Prefers metric units",
        key="units",
        pinned=True,
        importance=8,
        conversation_id=conversation.id,
        source="message:4",
        enabled=False,
        created_at=1001.0,
        updated_at=1001.0,
        tags=("style", "units"),
    )
    assert store.memory.get_memory(1) == entry


def test_defaults_make_a_global_manual_entry(store: Store) -> None:
    entry = store.memory.add_memory(MemoryKind.FACT, "Water boils at 100 °C at sea level.")
    assert (entry.conversation_id, entry.source, entry.importance, entry.enabled) == (
        None,
        "manual",
        5,
        True,
    )
    assert (entry.key, entry.pinned, entry.tags) == (None, False, ())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"kind": "opinion", "text": "x"},
            "Unknown memory kind 'opinion'; use fact, constraint, preference, hypothesis.",
        ),
        (
            {"kind": "fact", "text": "x", "importance": 11},
            "Importance is 11; it must be a whole number from 1 to 10.",
        ),
        (
            {"kind": "fact", "text": "x", "importance": 0},
            "Importance is 0; it must be a whole number from 1 to 10.",
        ),
        ({"kind": "fact", "text": "   "}, "A memory entry needs some text."),
    ],
)
def test_add_memory_refuses_bad_values(store: Store, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidValue) as caught:
        store.memory.add_memory(**kwargs)
    assert str(caught.value) == message
    assert store.memory.list_memory(include_all_scopes=True) == []


def test_add_memory_to_a_missing_conversation(store: Store) -> None:
    with pytest.raises(NotFound):
        store.memory.add_memory("fact", "x", conversation_id=5)


def test_update_changes_only_what_is_given_and_touches_updated_at(store: Store) -> None:
    conversation = store.conversations.create_conversation()  # 1000
    entry = store.memory.add_memory("hypothesis", "It rains", key="weather")  # 1001
    changed = store.memory.update_memory(
        entry.id, kind="fact", pinned=True, importance=9, conversation_id=conversation.id
    )  # 1002
    assert changed == MemoryEntry(
        id=entry.id,
        kind=MemoryKind.FACT,
        text="It rains",
        key="weather",
        pinned=True,
        importance=9,
        conversation_id=conversation.id,
        created_at=1001.0,
        updated_at=1002.0,
    )
    # None is a value (no key, global scope); UNSET means "leave it".
    cleared = store.memory.update_memory(entry.id, key=None, conversation_id=None, text=UNSET)
    assert (cleared.key, cleared.conversation_id, cleared.text) == (None, None, "It rains")
    retagged = store.memory.update_memory(
        entry.id, tags=("a", "b"), enabled=False, source="extraction"
    )
    assert (retagged.tags, retagged.enabled, retagged.source) == (("a", "b"), False, "extraction")


def test_update_refuses_bad_values_and_changes_nothing(store: Store) -> None:
    entry = store.memory.add_memory("fact", "x")
    with pytest.raises(InvalidValue):
        store.memory.update_memory(entry.id, importance=42)
    with pytest.raises(InvalidValue):
        store.memory.update_memory(entry.id, kind="guess")
    with pytest.raises(NotFound):
        store.memory.update_memory(entry.id, conversation_id=404)
    with pytest.raises(NotFound) as caught:
        store.memory.update_memory(999, pinned=True)
    assert str(caught.value) == "No memory entry with id 999."
    assert store.memory.get_memory(entry.id) == entry


def test_list_by_scope(store: Store) -> None:
    first = store.conversations.create_conversation()
    second = store.conversations.create_conversation()
    global_entry = store.memory.add_memory("fact", "global")
    mine = store.memory.add_memory("fact", "first's", conversation_id=first.id)
    theirs = store.memory.add_memory("fact", "second's", conversation_id=second.id)
    assert store.memory.list_memory(conversation_id=first.id) == [global_entry, mine]
    assert store.memory.list_memory() == [global_entry]
    assert store.memory.list_memory(include_all_scopes=True) == [global_entry, mine, theirs]


def test_delete_memory(store: Store) -> None:
    entry = store.memory.add_memory("constraint", "No peanuts")
    store.memory.delete_memory(entry.id)
    assert store.memory.list_memory(include_all_scopes=True) == []
    with pytest.raises(NotFound):
        store.memory.delete_memory(entry.id)


def test_switch_an_entry_off_in_one_conversation_and_on_again(store: Store) -> None:
    garden = store.conversations.create_conversation("Garden").id
    other = store.conversations.create_conversation("Other").id
    entry = store.memory.add_memory(MemoryKind.FACT, "The soil is clay.")
    assert store.memory.switch_memory(entry.id, garden, on=False).off_in == {garden}
    assert store.memory.switch_memory(entry.id, garden, on=False).off_in == {garden}  # twice: once
    assert store.memory.list_memory(conversation_id=other)[0].off_in == {garden}
    # A conversation made afterwards has it on: only where the user switched it off.
    newer = store.conversations.create_conversation("New garden").id
    assert newer not in store.memory.get_memory(entry.id).off_in
    assert store.memory.switch_memory(entry.id, other, on=False).off_in == {garden, other}
    assert store.memory.switch_memory(entry.id, garden, on=True).off_in == {other}
    assert store.memory.get_memory(entry.id).enabled


def test_switching_off_refuses_a_conversations_own_entry_and_missing_ids(store: Store) -> None:
    garden = store.conversations.create_conversation("Garden").id
    own = store.memory.add_memory(MemoryKind.FACT, "Tomatoes by the wall.", conversation_id=garden)
    with pytest.raises(InvalidValue, match=r"belongs to conversation \d+ alone: exclude it"):
        store.memory.switch_memory(own.id, garden, on=False)
    with pytest.raises(NotFound):
        store.memory.switch_memory(own.id + 1, garden, on=False)
    with pytest.raises(NotFound):
        store.memory.switch_memory(own.id, garden + 1, on=False)
    assert store.memory.get_memory(own.id).off_in == frozenset()


def test_a_new_version_stays_off_where_the_old_one_was(store: Store) -> None:
    garden = store.conversations.create_conversation("Garden").id
    old = store.memory.add_memory(MemoryKind.FACT, "Water twice a week.", key="watering")
    store.memory.switch_memory(old.id, garden, on=False)
    new = store.memory.add_memory(MemoryKind.FACT, "Water every day.", replaces=old.id)
    assert new.off_in == {garden}


def test_making_an_entry_a_conversations_own_forgets_it_was_off_there(store: Store) -> None:
    garden = store.conversations.create_conversation("Garden").id
    entry = store.memory.add_memory(MemoryKind.FACT, "The soil is clay.")
    store.memory.switch_memory(entry.id, garden, on=False)
    store.memory.update_memory(entry.id, conversation_id=garden)
    assert store.memory.update_memory(entry.id, conversation_id=None).off_in == frozenset()


def test_deleting_a_conversation_or_entry_drops_its_switches(store: Store) -> None:
    garden = store.conversations.create_conversation("Garden").id
    other = store.conversations.create_conversation("Other").id
    entry = store.memory.add_memory(MemoryKind.FACT, "The soil is clay.")
    store.memory.switch_memory(entry.id, garden, on=False)
    store.memory.switch_memory(entry.id, other, on=False)
    store.conversations.delete_conversation(garden)
    assert store.memory.get_memory(entry.id).off_in == {other}
    store.memory.delete_memory(entry.id)
    with store.reading() as conn:
        assert conn.execute("SELECT count(*) FROM memory_off").fetchone()[0] == 0
