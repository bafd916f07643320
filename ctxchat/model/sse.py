"""Server-sent events: the data of each event in a streamed HTTP body, as text."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator


async def event_data(body: AsyncIterable[bytes]) -> AsyncIterator[str]:
    """The data of each event in `body`, in order (the text/event-stream format).

    An event's `data:` lines are joined with newlines and it ends at a blank line; comment
    lines (`:`) and the other fields (`event:`, `id:`, `retry:`) are skipped, and an event
    the body ends in before its blank line is dropped, as the format says. Lines end in LF,
    CRLF or CR (a CR ends its line at once; an LF right after it is skipped), and are split
    before they are decoded, so a character cut between two network reads arrives whole.
    Text that is not UTF-8 is replaced, never raised on.
    """
    pending = b""
    after_cr = False
    data: list[str] = []
    async for part in body:
        if after_cr and part.startswith(b"\n"):
            part = part[1:]  # the LF of a CRLF cut between two reads
        if not part:
            continue
        lines = (pending + part).splitlines(keepends=True)
        pending = b"" if lines[-1].endswith((b"\n", b"\r")) else lines.pop()
        after_cr = bool(lines) and lines[-1].endswith(b"\r") and not pending
        for line in lines:
            event = _read_line(line, data)
            if event is not None:
                yield event


def _read_line(line: bytes, data: list[str]) -> str | None:
    """Take one line into `data`; at the blank line that ends an event, return its data."""
    text = line.rstrip(b"\r\n").decode("utf-8", errors="replace")
    if not text:
        if not data:
            return None
        event = "\n".join(data)
        data.clear()
        return event
    field, _, value = text.partition(":")
    if field == "data":
        data.append(value[1:] if value.startswith(" ") else value)
    return None
