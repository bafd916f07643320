"""Finding messages by the words typed: every word, each as a prefix, from the index."""

from __future__ import annotations

from ctxchat.store import Store
from ctxchat.store.records import MessageHit
from ctxchat.store.search import find_expression

from .conftest import Say


def test_expression_takes_the_words_the_index_knows() -> None:
    assert find_expression('  Postgres, "quoted" snake_case ') == (
        '"postgres"* AND "quoted"* AND "snake"* AND "case"*'
    )
    assert find_expression("?!  -- ") == ""
    assert find_expression("ПРИВЕТ привет") == '"привет"*'


def test_conversations_are_found_by_every_word_of_their_messages(store: Store, say: Say) -> None:
    trip = store.conversations.create_conversation("Trip").id
    code = store.conversations.create_conversation("Code").id
    empty = store.conversations.create_conversation("Nothing here").id
    say(trip, "user", "Where should we stay in Lisbon?")
    say(trip, "assistant", "Alfama is charming; Lisbon trams are old.")
    newest = say(trip, "user", "Book the Lisbon hotel")
    say(code, "user", "Lisbon is not a database")
    say(empty, "user", "Porto")

    found = store.search.find_conversations("lisb")  # typed so far: a prefix
    assert found == {
        trip: MessageHit(trip, newest.id, "Book the Lisbon hotel", 3),
        code: MessageHit(code, found[code].message_id, "Lisbon is not a database", 1),
    }
    assert set(store.search.find_conversations("lisbon TRAMS")) == {trip}
    assert store.search.find_conversations("lisbon madrid") == {}
    assert store.search.find_conversations("   ") == {}
    assert store.search.find_conversations('"*') == {}  # nothing to look up, not an error


def test_one_conversation_lists_its_hits_oldest_first(store: Store, say: Say) -> None:
    one = store.conversations.create_conversation().id
    other = store.conversations.create_conversation().id
    first = say(one, "user", "The migration plan")
    say(one, "assistant", "Nothing about it")
    third = say(one, "user", "Migrations run at night")
    say(other, "user", "migration elsewhere")
    assert store.search.find_in_conversation(one, "migra") == [first.id, third.id]
    assert store.search.find_in_conversation(one, "migration night") == [third.id]
    assert store.search.find_in_conversation(one, "") == []
    assert store.search.message_position(one, third.id) == 2
    assert store.search.message_position(one, first.id) == 0
