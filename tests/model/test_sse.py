"""Reading server-sent events: line endings, split reads, multi-line data, comments."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from ctxchat.model.sse import event_data


async def read(parts: Sequence[bytes]) -> list[str]:
    async def body() -> AsyncIterator[bytes]:
        for part in parts:
            yield part

    return [data async for data in event_data(body())]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
async def test_each_line_ending_ends_lines_and_events(ending: bytes) -> None:
    body = b"data: one" + ending + ending + b"data: two" + ending + ending
    assert await read([body]) == ["one", "two"]


async def test_an_event_split_anywhere_between_reads_arrives_whole() -> None:
    body = 'data: {"content": "naïve café 🙂"}\r\n\r\ndata: [DONE]\r\n\r\n'.encode()
    expected = ['{"content": "naïve café 🙂"}', "[DONE]"]
    for cut in range(1, len(body)):
        assert await read([body[:cut], body[cut:]]) == expected, cut


async def test_one_byte_at_a_time() -> None:
    body = b"data: a\r\n\r\ndata: b\n\n"
    assert await read([body[i : i + 1] for i in range(len(body))]) == ["a", "b"]


async def test_data_lines_of_one_event_join_with_newlines() -> None:
    assert await read([b"data: first\ndata:second\ndata:  third\n\n"]) == ["first\nsecond\n third"]


async def test_comments_and_other_fields_are_skipped() -> None:
    body = b": keep-alive\n\nevent: message\nid: 7\nretry: 100\ndata: x\n\n"
    assert await read([body]) == ["x"]


async def test_blank_lines_without_data_make_no_event() -> None:
    assert await read([b"\n\n\r\n: ping\n\n"]) == []


async def test_a_last_event_without_its_blank_line_is_still_read() -> None:
    assert await read([b"data: a\n\ndata: b"]) == ["a", "b"]


async def test_bytes_that_are_not_utf8_are_replaced() -> None:
    assert await read([b"data: caf\xe9\n\n"]) == ["caf\ufffd"]
