"""Reading a large JSON file one item at a time, never the whole file at once.

An export of years of chats is one JSON array that may run to hundreds of megabytes. The
reader pulls the file in chunks, decodes each item of the top-level array with the standard
library's `JSONDecoder.raw_decode` as soon as it is complete, and lets go of the text it has
read; what it holds at once is one item and one chunk.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from ctxchat.store.importers.fields import NotJson

CHUNK = 1 << 20
"""Bytes read at a time."""

WRAPPED_KEYS = frozenset({"conversations", "chats"})
"""Keys of a top-level object whose array is streamed like a top-level array (some exports
wrap their list: `{"conversations": [...]}`)."""

_SPACE = re.compile(r"[ \t\n\r]*")
# Within this many characters of the end of what was read, a decoding error may only mean
# the value goes on in the next chunk.
_CUT_MARGIN = 64


class JsonItems:
    """The items of a JSON file's top-level array, one at a time (`for item in JsonItems(f)`).

    A top-level object with a `conversations` (or `chats`) array yields that array's items;
    any other top-level object is one item. `top` says which it was once reading began:
    "array", "wrapped" or "object". Errors are `NotJson` errors naming the line.
    """

    def __init__(self, file: BinaryIO, *, chunk: int = CHUNK) -> None:
        self._file = file
        self._chunk = chunk
        self._decoder = json.JSONDecoder()
        # utf-8-sig: a byte order mark some editors write is skipped, not taken for text.
        self._bytes = codecs.getincrementaldecoder("utf-8-sig")()
        self._text = ""
        self._at = 0
        self._eof = False
        self._lines_before = 0  # new lines in the text already let go of
        self._chars_before = 0  # characters let go of
        self._bytes_read = 0
        self.top = ""

    def __iter__(self) -> Iterator[Any]:
        first = self._peek()
        if first == "[":
            self.top = "array"
            self._at += 1
            yield from self._array()
        elif first == "{":
            yield from self._object()
        elif first == "":
            raise NotJson("the file is empty")
        else:
            self.top = "value"
            yield self._value()
        if self._peek() != "":
            raise self._error("more follows the end of the JSON value", self._at)

    def _array(self) -> Iterator[Any]:
        """The items of an array whose `[` was read."""
        if self._peek() == "]":
            self._at += 1
            return
        while True:
            yield self._value()
            after = self._peek()
            self._at += 1
            if after == "]":
                return
            if after == "":
                raise self._error(
                    "the file ends before the list does (was it cut short?)", self._at
                )
            if after != ",":
                raise self._error("expected ',' or ']' after an item", self._at - 1)

    def _object(self) -> Iterator[Any]:
        """A top-level object: its list of conversations streamed, or the object whole."""
        self._at += 1
        members: dict[str, Any] = {}
        streamed = False
        if self._peek() == "}":
            self._at += 1
        else:
            while True:
                if self._peek() != '"':
                    raise self._error("expected a key in double quotes", self._at)
                key = self._value()
                if self._peek() != ":":
                    raise self._error("expected ':' after a key", self._at)
                self._at += 1
                if key in WRAPPED_KEYS and not streamed and self._peek() == "[":
                    streamed = True
                    self.top = "wrapped"
                    self._at += 1
                    yield from self._array()
                else:
                    members[key] = self._value()
                after = self._peek()
                self._at += 1
                if after == "}":
                    break
                if after == "":
                    raise self._error("the file ends before the object does", self._at)
                if after != ",":
                    raise self._error("expected ',' or '}' after a member", self._at - 1)
        if not streamed:
            self.top = "object"
            yield members

    def _value(self) -> Any:
        """The JSON value that starts at the reading place, read whole."""
        self._peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self._text, self._at)
            except json.JSONDecodeError as error:
                if not self._eof and self._maybe_cut(error):
                    self._read(more=True)
                    continue
                raise self._error(error.msg, error.pos) from None
            # A number near the end may go on in the next chunk (`-2.` read as `-2`).
            near_end = end >= len(self._text) - _CUT_MARGIN
            if near_end and not self._eof and not isinstance(value, dict | list | str):
                self._read(more=True)
                continue
            self._at = end
            return value

    def _maybe_cut(self, error: json.JSONDecodeError) -> bool:
        return error.pos >= len(self._text) - _CUT_MARGIN or error.msg.startswith(
            "Unterminated string"
        )

    def _peek(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            self._at = _SPACE.match(self._text, self._at).end()  # type: ignore[union-attr]
            if self._at < len(self._text):
                return self._text[self._at]
            if self._eof:
                return ""
            self._read()

    def _read(self, *, more: bool = False) -> None:
        """Read the next chunk (a growing one when a value did not fit), letting go of the
        text already decoded."""
        if self._at:
            self._lines_before += self._text.count("\n", 0, self._at)
            self._chars_before += self._at
            self._text = self._text[self._at :]
            self._at = 0
        size = max(self._chunk, len(self._text)) if more else self._chunk
        data = self._file.read(size)
        self._bytes_read += len(data)
        try:
            self._text += self._bytes.decode(data, final=not data)
        except UnicodeDecodeError as error:
            where = self._bytes_read - len(data) + error.start
            raise NotJson(f"the file is not UTF-8 text (byte {where:,})") from None
        if not data:
            self._eof = True

    def _error(self, message: str, position: int) -> NotJson:
        line = self._lines_before + self._text.count("\n", 0, position) + 1
        # Exports are often one line: the character says where on it.
        character = self._chars_before + position + 1
        return NotJson(f"not valid JSON at line {line:,} (character {character:,}): {message}")
