"""A number with its noun: the singular for one, the plural otherwise."""

from ctxchat.core.counts import counted


def test_one_takes_the_singular_and_others_the_plural() -> None:
    assert counted(1, "message") == "1 message"
    assert counted(0, "message") == "0 messages"
    assert counted(2_048, "entry", "entries") == "2,048 entries"
    assert counted(1, "memory entry", "memory entries") == "1 memory entry"
