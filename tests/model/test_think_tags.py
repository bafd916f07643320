"""Separating a leading <think> block from streamed text, across any chunk boundaries."""

from __future__ import annotations

import pytest

from ctxchat.model.backend import ThinkTagSplitter


def split(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkTagSplitter()
    text, reasoning = "", ""
    for piece in pieces:
        out, thought = splitter.feed(piece)
        text, reasoning = text + out, reasoning + thought
    out, thought = splitter.flush()
    return text + out, reasoning + thought


def every_chunking(source: str, size: int) -> list[str]:
    return [source[i : i + size] for i in range(0, len(source), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 100])
def test_leading_block_becomes_reasoning(size: int) -> None:
    source = "<think>\nIs it 4? Yes.\n</think>\n\nIt is 4."

    assert split(every_chunking(source, size)) == ("It is 4.", "Is it 4? Yes.\n")


@pytest.mark.parametrize("size", [1, 4, 100])
def test_text_without_a_block_is_untouched(size: int) -> None:
    source = "  Use <think> tags like </think> this."

    assert split(every_chunking(source, size)) == (source, "")


def test_unclosed_block_is_all_reasoning() -> None:
    assert split(["<think>still going", " on"]) == ("", "still going on")


def test_text_that_only_starts_like_the_tag() -> None:
    assert split(["<thi", "s is html>"]) == ("<this is html>", "")


def test_short_text_held_back_until_the_end() -> None:
    assert split(["<"]) == ("<", "")
