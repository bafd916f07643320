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


async def test_an_event_the_body_ends_in_before_its_blank_line_is_dropped() -> None:
    """As the format says (and as openai reads it): a body cut mid-event ends early."""
    assert await read([b"data: a\n\ndata: b"]) == ["a"]
    assert await read([b"data: a\n\ndata: b\n"]) == ["a"]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
async def test_an_event_arrives_with_the_read_that_ends_it(ending: bytes) -> None:
    """Not one read later: a CR at the end of a read ends its line at once."""
    reads: list[bytes] = []

    async def body() -> AsyncIterator[bytes]:
        for data in (b"one", b"two", b"three"):
            part = b"data: " + data + ending + ending
            reads.append(part)
            yield part

    events = event_data(body())
    for count, expected in enumerate(["one", "two", "three"], start=1):
        assert await anext(events) == expected
        assert len(reads) == count


async def test_a_crlf_cut_between_two_reads_is_one_line_ending() -> None:
    assert await read([b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n"]) == ["a", "b"]


async def test_bytes_that_are_not_utf8_are_replaced() -> None:
    assert await read([b"data: caf\xe9\n\n"]) == ["caf\ufffd"]
