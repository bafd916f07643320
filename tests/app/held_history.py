"""A history file that arrives in two parts: a named pipe the test writes the first
conversation into, then the rest once told (`release`), so an import can be seen half way."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from ctxchat.store.importers.json_stream import CHUNK


class HeldHistory:
    """`path` is a pipe holding a ChatGPT export of `conversations`: the first is readable
    at once (with enough blank space after it to fill the importer's first read), the others
    once `release()` is called. `finished` is set once the reader has had all it takes
    (all of it, or it stopped reading)."""

    def __init__(self, folder: Path, conversations: list[dict[str, Any]]) -> None:
        self.path = folder / "conversations.json"
        os.mkfifo(self.path)
        first, *rest = (json.dumps(c) for c in conversations)
        self._head = ("[" + first + "," + " " * CHUNK).encode()
        self._tail = (",".join(rest) + "]").encode()
        self._released = threading.Event()
        self.finished = threading.Event()
        threading.Thread(target=self._write, daemon=True).start()

    def release(self) -> None:
        self._released.set()

    def _write(self) -> None:
        try:
            with open(self.path, "wb") as pipe:  # waits for the reader to open it
                pipe.write(self._head)
                pipe.flush()
                self._released.wait()
                pipe.write(self._tail)
        except BrokenPipeError:  # the reader stopped reading (a cancelled import)
            pass
        finally:
            self.finished.set()
