"""Server-sent events: the data of each event in a streamed HTTP body, as text."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator


async def event_data(body: AsyncIterable[bytes]) -> AsyncIterator[str]:
    """The data of each event in `body`, in order (the text/event-stream format).

    An event's `data:` lines are joined with newlines and it ends at a blank line; comment
    lines (`:`) and the other fields (`event:`, `id:`, `retry:`) are skipped. Lines end in LF,
    CRLF or CR, and are split before they are decoded, so a character cut between two
    network reads arrives whole. Text that is not UTF-8 is replaced, never raised on.
    """
    pending = b""
    data: list[str] = []
    async for part in body:
        lines = (pending + part).splitlines(keepends=True)
        # A line is whole once its ending is in; a CR may yet be followed by its LF.
        pending = lines.pop() if lines and not lines[-1].endswith(b"\n") else b""
        for line in lines:
            event = _read_line(line, data)
            if event is not None:
                yield event
    if pending:
        event = _read_line(pending, data)
        if event is not None:
            yield event
    if data:
        yield "\n".join(data)  # the body ended without the blank line after its last event


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
