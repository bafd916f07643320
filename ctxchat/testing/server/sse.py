"""Server-sent events over HTTP/1.1 chunked transfer encoding, as the scripted server streams."""

from __future__ import annotations

import json
from io import BufferedIOBase


class ClientGone(Exception):
    """The client closed the connection while we were writing."""


class EventWriter:
    """Writes `data: ...` events, one HTTP chunk each, and the closing chunk."""

    def __init__(self, wfile: BufferedIOBase) -> None:
        self._wfile = wfile

    def event(self, payload: object) -> None:
        """One event: a string as it is (e.g. `[DONE]`), anything else as JSON."""
        data = payload if isinstance(payload, str) else json.dumps(payload)
        self._write(b"data: %s\n\n" % data.encode())

    def end(self) -> None:
        """The zero-length chunk that ends the body."""
        self._raw(b"0\r\n\r\n")

    def _write(self, data: bytes) -> None:
        self._raw(b"%x\r\n%s\r\n" % (len(data), data))

    def _raw(self, data: bytes) -> None:
        try:
            self._wfile.write(data)
            self._wfile.flush()
        except OSError as exc:
            raise ClientGone from exc
