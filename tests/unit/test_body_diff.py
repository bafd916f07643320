"""What differs between two request bodies: every key, and the messages."""

from ctxchat.core.body_diff import NOT_SENT, KeyChange, body_changes


def test_every_key_that_differs_is_named_with_both_values() -> None:
    before = {"model": "m", "messages": [], "max_tokens": 1024, "stream": True, "stop": ["x"]}
    after = {"model": "n", "messages": [], "max_tokens": 150, "temperature": 0.3, "stream": True}
    keys, messages = body_changes(before, after)
    assert keys == [
        KeyChange("model", '"m"', '"n"'),
        KeyChange("max_tokens", "1,024", "150"),
        KeyChange("temperature", NOT_SENT, "0.3"),
        KeyChange("stop", '["x"]', NOT_SENT),
    ]
    assert not messages
    assert keys[1].words() == "max_tokens: 1,024 → 150"


def test_messages_changed_added_and_gone_are_told_by_place_and_role() -> None:
    system = {"role": "system", "content": "a"}
    user = {"role": "user", "content": "b"}
    _keys, changes = body_changes(
        {"messages": [system, user]},
        {"messages": [{"role": "system", "content": "A"}, user, user]},
    )
    assert changes.words() == "messages: changed #1 system; added #3 user"
    _keys, fewer = body_changes({"messages": [system, user]}, {"messages": [system]})
    assert fewer.words() == "messages: 1 fewer at the end"
