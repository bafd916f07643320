"""Terminal input with bracketed pastes: escape characters inside a paste stay in its text,
however the input is split between reads, and keys outside a paste are keys."""

from __future__ import annotations

import pytest
from textual import events
from textual.message import Message

from ctxchat.tui.textual_compat.paste import PasteKeepingParser

PASTED = "log: \x1b[31mFAILED\x1b[0m\rnext \x1b\x1b[1mline\x1b[201 not the end\x1b"
INPUT = f"ab\x1b[200~{PASTED}\x1b[201~cd"


def described(found: list[Message]) -> list[tuple[str, str]]:
    return [
        ("paste", event.text) if isinstance(event, events.Paste) else ("key", event.key)
        for event in found
        if isinstance(event, (events.Paste, events.Key))
    ]


EXPECTED = [("key", "a"), ("key", "b"), ("paste", PASTED), ("key", "c"), ("key", "d")]


def test_a_paste_holding_escape_characters_is_one_paste_between_the_keys() -> None:
    assert described(list(PasteKeepingParser().feed(INPUT))) == EXPECTED


@pytest.mark.parametrize("cut", range(1, len(INPUT)))
def test_input_split_anywhere_between_two_reads_parses_the_same(cut: int) -> None:
    parser = PasteKeepingParser()
    found = [*parser.feed(INPUT[:cut]), *parser.feed(INPUT[cut:])]
    assert described(found) == EXPECTED


def test_keys_and_escape_sequences_outside_a_paste_are_untouched() -> None:
    found = list(PasteKeepingParser().feed("x\x1b[Ay\r"))
    assert described(found) == [("key", "x"), ("key", "up"), ("key", "y"), ("key", "enter")]


def test_two_pastes_in_a_row_are_two_pastes() -> None:
    found = list(PasteKeepingParser().feed("\x1b[200~\x1b[1mone\x1b[201~\x1b[200~two\x1b[201~"))
    assert described(found) == [("paste", "\x1b[1mone"), ("paste", "two")]
