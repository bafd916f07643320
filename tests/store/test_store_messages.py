"""Messages: adding, paging, editing, cutting the tail, and the history the engine reads."""

from collections.abc import Callable

import pytest

from ctxchat.core.history import HistoryMessage, MessageStatus
from ctxchat.core.plan import ContextPlan
from ctxchat.store import InvalidValue, NotFound, Store, StoredMessage

from .endings import failed_with

Say = Callable[[int, str, str], StoredMessage]


def test_add_message_stores_every_field(store: Store) -> None:
    conversation = store.conversations.create_conversation("c")  # t=1000
    message = store.messages.add_message(
        conversation.id,
        "user",
        "Hello",
        tokens=7,
        exact=True,
        encoding="o200k_base",
        model="gpt-4o",
    )  # t=1001
    assert message == StoredMessage(
        id=1,
        conversation_id=conversation.id,
        role="user",
        content="Hello",
        tokens=7,
        exact=True,
        encoding="o200k_base",
        status=MessageStatus.COMPLETE,
        model="gpt-4o",
        created_at=1001.0,
        updated_at=1001.0,
    )
    assert store.messages.get_message(1) == message
    assert store.conversations.get_conversation(conversation.id).updated_at == 1001.0


def test_add_message_refuses_bad_input(store: Store) -> None:
    conversation = store.conversations.create_conversation()
    other = store.conversations.create_conversation()
    with pytest.raises(InvalidValue) as caught:
        store.messages.add_message(
            conversation.id, "robot", "x", tokens=1, exact=True, encoding="e"
        )
    assert str(caught.value) == (
        "Unknown role 'robot'; a message is from system, user, assistant, tool."
    )
    with pytest.raises(InvalidValue):
        store.messages.add_message(
            conversation.id,
            "assistant",
            "x",
            tokens=1,
            exact=True,
            encoding="e",
            status=MessageStatus.STREAMING,
        )
    with pytest.raises(NotFound) as missing:
        store.messages.add_message(77, "user", "x", tokens=1, exact=True, encoding="e")
    assert str(missing.value) == "No conversation with id 77."
    elsewhere = store.messages.add_message(
        other.id, "user", "x", tokens=1, exact=True, encoding="e"
    )
    with pytest.raises(InvalidValue) as parent:
        store.messages.add_message(
            conversation.id, "user", "y", tokens=1, exact=True, encoding="e", parent_id=elsewhere.id
        )
    assert str(parent.value) == f"Message {elsewhere.id} is not in conversation {conversation.id}."
    assert store.messages.count_messages(conversation.id) == 0


def test_parent_links_a_branch(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()
    first = say(conversation.id, "user", "a")
    branch = store.messages.add_message(
        conversation.id, "user", "b", tokens=5, exact=True, encoding="e", parent_id=first.id
    )
    assert branch.parent_id == first.id


def test_messages_page_in_order(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()
    other = store.conversations.create_conversation()
    for index in range(7):
        say(conversation.id, "user" if index % 2 == 0 else "assistant", f"m{index}")
        say(other.id, "user", f"other {index}")
    assert [m.content for m in store.messages.messages(conversation.id)] == [
        f"m{i}" for i in range(7)
    ]
    assert [m.content for m in store.messages.messages(conversation.id, offset=2, limit=3)] == [
        "m2",
        "m3",
        "m4",
    ]
    assert [m.content for m in store.messages.messages(conversation.id, offset=5)] == ["m5", "m6"]
    assert store.messages.count_messages(conversation.id) == 7
    third = store.messages.messages(conversation.id)[2]
    assert (
        store.messages.count_messages(conversation.id, after=third.id) == 4
    )  # other's not counted
    assert (
        store.messages.count_messages(
            conversation.id, after=store.messages.messages(conversation.id)[-1].id
        )
        == 0
    )
    with pytest.raises(NotFound):
        store.messages.messages(99)
    with pytest.raises(NotFound):
        store.messages.count_messages(99, after=third.id)


def test_text_that_cannot_be_encoded_is_stored_with_a_replacement_character(
    store: Store,
) -> None:
    conversation = store.conversations.create_conversation()
    message = store.messages.add_message(
        conversation.id, "assistant", "broken \ud83d emoji", tokens=3, exact=False, encoding="e"
    )
    assert store.messages.get_message(message.id).content == "broken \ufffd emoji"


def test_edit_changes_text_and_count(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()  # 1000
    message = say(conversation.id, "user", "helo")  # 1001
    edited = store.messages.update_message_content(
        message.id, "hello there", tokens=9, exact=False, encoding="estimate"
    )  # 1002
    assert (edited.content, edited.tokens, edited.exact, edited.encoding) == (
        "hello there",
        9,
        False,
        "estimate",
    )
    assert (edited.created_at, edited.updated_at) == (1001.0, 1002.0)
    with pytest.raises(NotFound):
        store.messages.update_message_content(99, "x", tokens=1, exact=True, encoding="e")


def summarize(store: Store, conversation_id: int, first: int, last: int) -> int:
    return store.summaries.add_summary(
        conversation_id,
        text=f"covers {first}-{last}",
        first_message_id=first,
        last_message_id=last,
        strategy="keyvalue",
        model="m",
        tokens=5,
    ).id


def test_editing_a_summarized_message_drops_the_summaries_made_from_it(
    store: Store,
    say: Say,
) -> None:
    conversation = store.conversations.create_conversation()
    ids = [say(conversation.id, "user", f"m{i}").id for i in range(6)]
    v1 = summarize(store, conversation.id, ids[0], ids[1])
    summarize(store, conversation.id, ids[0], ids[3])
    store.messages.update_message_content(ids[2], "changed", tokens=5, exact=True, encoding="e")
    assert [s.version for s in store.summaries.summaries(conversation.id)] == [1]
    active = store.summaries.active_summary(conversation.id)
    assert active is not None and active.id == v1
    # Editing a message no summary covers keeps them all.
    store.messages.update_message_content(ids[5], "changed too", tokens=6, exact=True, encoding="e")
    assert [s.version for s in store.summaries.summaries(conversation.id)] == [1]


def test_delete_after_removes_later_turns_their_plans_and_summaries(
    store: Store,
    say: Say,
) -> None:
    conversation = store.conversations.create_conversation()
    other = store.conversations.create_conversation()
    ids = [say(conversation.id, "user", f"m{i}").id for i in range(6)]
    untouched = say(other.id, "user", "elsewhere")
    v1 = summarize(store, conversation.id, ids[0], ids[1])
    summarize(store, conversation.id, ids[0], ids[3])  # v2, in force, covers a doomed message
    plan = ContextPlan.from_dict(
        {
            "format": 1,
            "status": "ok",
            "mode": "objective",
            "budget": {"context_window": 100, "output_reserve": 10, "total": 90, "shares": {}},
            "counter": {"name": "e", "exact": True, "note": ""},
            "tokens": 5,
            "layers": [],
            "messages": [
                {"role": "user", "content": "m4", "layer": "input", "tokens": 5, "ref": "input"}
            ],
        }
    )
    store.plans.save_plan(ids[5], plan)
    assert store.messages.delete_messages_after(conversation.id, ids[2]) == 3
    assert [m.id for m in store.messages.messages(conversation.id)] == ids[:3]
    assert store.messages.get_message(untouched.id).content == "elsewhere"
    assert [s.version for s in store.summaries.summaries(conversation.id)] == [1]
    active = store.summaries.active_summary(conversation.id)
    assert active is not None and active.id == v1
    assert store.plans.load_plan(ids[5]) is None
    with store.reading() as conn:
        assert conn.execute("SELECT count(*) FROM plan_blobs").fetchone()[0] == 0
    # New messages never reuse the deleted ids.
    assert say(conversation.id, "user", "new").id == untouched.id + 1
    assert store.messages.delete_messages_after(conversation.id, ids[2]) == 1
    assert store.messages.delete_messages_after(conversation.id, ids[2]) == 0


def test_delete_after_keeps_a_rolled_back_choice(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()
    ids = [say(conversation.id, "user", f"m{i}").id for i in range(4)]
    summarize(store, conversation.id, ids[0], ids[1])
    summarize(store, conversation.id, ids[0], ids[3])
    store.summaries.activate_summary(conversation.id, None)
    store.messages.delete_messages_after(conversation.id, ids[1])
    assert store.summaries.active_summary(conversation.id) is None
    assert [s.version for s in store.summaries.summaries(conversation.id)] == [1]


def test_delete_after_checks_the_message_belongs_to_the_conversation(
    store: Store,
    say: Say,
) -> None:
    first = store.conversations.create_conversation()
    second = store.conversations.create_conversation()
    message = say(first.id, "user", "x")
    with pytest.raises(InvalidValue):
        store.messages.delete_messages_after(second.id, message.id)
    with pytest.raises(NotFound):
        store.messages.delete_messages_after(first.id, 999)


def test_history_gives_the_stored_counts_without_counting(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()
    say(conversation.id, "user", "one two")
    failed = store.replies.start_reply(conversation.id, model="m")
    store.replies.finish_reply(
        failed.id,
        failed_with("HTTP 500"),
    )

    def must_not_count(role: str, content: str) -> int:
        raise AssertionError("history must not be counted again")

    assert store.messages.history(conversation.id, "o200k_base", must_not_count) == [
        HistoryMessage(1, "user", "one two", 6),
        HistoryMessage(2, "assistant", "", 0, MessageStatus.FAILED),
    ]


def test_history_recounts_once_when_the_encoding_changed(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation()
    say(conversation.id, "user", "one two three")  # 7 tokens with o200k_base
    say(conversation.id, "assistant", "four")  # 5
    streaming = store.replies.start_reply(conversation.id, model="m")
    calls: list[tuple[str, str]] = []

    def recount(role: str, content: str) -> int:
        calls.append((role, content))
        return 100 + len(content)

    expected = [
        HistoryMessage(1, "user", "one two three", 113),
        HistoryMessage(2, "assistant", "four", 104),
        HistoryMessage(streaming.id, "assistant", "", 0, MessageStatus.STREAMING),
    ]
    assert store.messages.history(conversation.id, "cl100k_base", recount, exact=True) == expected
    assert calls == [("user", "one two three"), ("assistant", "four")]
    stored = store.messages.get_message(1)
    assert (stored.tokens, stored.encoding, stored.exact) == (113, "cl100k_base", True)
    # The second time the stored counts are used: no counting at all.
    assert store.messages.history(conversation.id, "cl100k_base", recount, exact=True) == expected
    assert len(calls) == 2
    # Without a recount function the stored counts are returned as they are.
    assert store.messages.history(conversation.id, "o200k_base")[0].tokens == 113
