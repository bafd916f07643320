"""Reading one streamed chunk's JSON: text, reasoning, finish and usage, whatever its shape."""

from __future__ import annotations

from typing import Any

import pytest

from ctxchat.model.backend import StreamChunk, ThinkTagSplitter, Usage
from ctxchat.model.chunks import pieces_of


def choice(delta: Any, finish: Any = None, index: Any = 0) -> dict[str, Any]:
    return {"choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


@pytest.mark.parametrize(
    ("chunk", "expected"),
    [
        (choice({"content": "Hi"}), [StreamChunk(text="Hi")]),
        (choice({"reasoning_content": "Hmm"}), [StreamChunk(reasoning="Hmm")]),  # llama.cpp
        (choice({"reasoning": "Hmm"}), [StreamChunk(reasoning="Hmm")]),  # Ollama, OpenRouter
        (choice({}, "stop"), [StreamChunk(finish_reason="stop")]),
        (choice({"role": "assistant", "content": ""}), []),
        (
            {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}},
            [StreamChunk(usage=Usage(9, 2))],
        ),
        (
            {
                "choices": None,
                "usage": {"prompt_tokens": 9, "prompt_tokens_details": {"cached_tokens": 4}},
            },
            [StreamChunk(usage=Usage(9, None, 4))],
        ),
    ],
)
def test_what_a_chunk_says(chunk: Any, expected: list[StreamChunk]) -> None:
    assert pieces_of(chunk, None) == expected


@pytest.mark.parametrize(
    "chunk",
    [
        [1, 2, 3],
        "text",
        None,
        {"choices": "not a list"},
        {"choices": [None, 7]},
        choice({"content": "other"}, index=1),
        choice("not an object"),
        choice({"content": 7, "reasoning": ["a"]}, finish=3),
        {"choices": [], "usage": {"prompt_tokens": "9"}},
        {"choices": [], "usage": "many"},
    ],
)
def test_a_chunk_of_another_shape_says_nothing(chunk: Any) -> None:
    assert pieces_of(chunk, None) == []


def test_think_tags_in_the_text_become_reasoning() -> None:
    splitter = ThinkTagSplitter()
    pieces = [
        *pieces_of(choice({"content": "<think>weigh"}), splitter),
        *pieces_of(choice({"content": " it</think>Yes."}, "stop"), splitter),
    ]
    assert "".join(p.reasoning for p in pieces) == "weigh it"
    assert "".join(p.text for p in pieces) == "Yes."
    assert pieces[-1].finish_reason == "stop"
