"""A very large export is read a chunk at a time: what is held at once is bounded by a chunk
and one conversation, not by the size of the file."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import BinaryIO, cast

from ctxchat.chat.history_import import import_file
from ctxchat.core.tokens import TokenCounter
from ctxchat.store import Store
from ctxchat.store.importers import chatgpt
from ctxchat.store.importers.json_stream import CHUNK, JsonItems

from .chatgpt_export import short

MEGABYTE = 1 << 20


def large_export(path: Path, size: int) -> int:
    """Write a ChatGPT export of at least `size` bytes, one conversation at a time; how many
    conversations it holds."""
    answer = "Fjords are long, narrow inlets with steep sides. " * 60
    count = 0
    with path.open("w", encoding="utf-8") as file:
        file.write("[")
        while file.tell() < size:
            if count:
                file.write(",\n")
            json.dump(short(f"c{count}", f"Question {count}", answer), file)
            count += 1
        file.write("]")
    return count


class CountedReads:
    """A file that remembers the largest read asked of it."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self.largest = 0

    def read(self, size: int = -1) -> bytes:
        self.largest = max(self.largest, size)
        return self._file.read(size)


def test_the_reader_asks_for_a_chunk_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    count = large_export(path, 8 * MEGABYTE)
    with path.open("rb") as raw:
        counted = CountedReads(raw)
        read = 0
        for _ in chatgpt.conversations(JsonItems(cast(BinaryIO, counted))):
            read += 1
    assert read == count
    assert 0 < counted.largest <= CHUNK


def test_reading_a_large_export_holds_little_of_it(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    path = tmp_path / "conversations.json"
    count = large_export(path, 24 * MEGABYTE)
    tracemalloc.start()
    try:
        done = import_file(store, path, counter=counter, dry_run=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert done.report is not None and len(done.report.outcomes) == count
    # The file is 24 MB; the reader holds a chunk of it (1 MB) and one conversation.
    assert peak < 6 * MEGABYTE
