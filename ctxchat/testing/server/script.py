"""What the scripted server replies and records: the reply queue, the fault queue, the log."""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxchat.testing.server.faults import PendingFault

_WORD = re.compile(r"\w+|[^\w\s]")


def simple_tokens(text: str) -> list[str]:
    """Words and punctuation marks: the server's deterministic stand-in for a tokenizer."""
    return _WORD.findall(text)


def simple_token_count(text: str) -> int:
    """Count words and punctuation marks (`simple_tokens`)."""
    return len(_WORD.findall(text))


def count_prompt_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    """Prompt tokens the server reports by default: OpenAI's chat overhead on simple counts."""
    # 3 tokens per message plus 3 to prime the reply, like OpenAI's chat format, so
    # numbers look familiar in demos while staying trivial to predict in tests.
    total = 3
    for message in messages:
        content = message.get("content")
        total += 3 + (simple_token_count(content) if isinstance(content, str) else 0)
    return total


@dataclass(frozen=True)
class Reply:
    """One scripted reply: its text, optional reasoning and how it finishes."""

    text: str
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"
    finish_reason: str = "stop"
    raw_chunks: tuple[Any, ...] = ()
    """JSON payloads sent as they are before the text: chunks of shapes a server may send."""


ScriptItem = str | Reply | Callable[[dict[str, Any]], "str | Reply"]


class RecordedRequest(dict[str, Any]):
    """A received chat request body (a dict) that also carries its path and headers, the
    body's bytes as received (`raw`), and the client's address and port (one per
    connection: a reused connection keeps its port)."""

    def __init__(
        self,
        body: Mapping[str, Any],
        *,
        path: str,
        headers: Mapping[str, str],
        client: tuple[str, int] = ("", 0),
        raw: bytes = b"",
    ) -> None:
        super().__init__(body)
        self.path = path
        self.headers = dict(headers)
        self.client = client
        self.raw = raw


class Script:
    """The queued replies and faults, the recorded requests, and waiting on them (thread-safe)."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.other_requests: list[RecordedRequest] = []
        self._replies: deque[ScriptItem] = deque()
        self._faults: deque[PendingFault] = deque()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._aborted = 0
        self._counter = 0

    def add_replies(self, replies: Sequence[ScriptItem]) -> None:
        with self._lock:
            self._replies.extend(replies)

    def add_fault(self, fault: PendingFault) -> None:
        with self._lock:
            self._faults.append(fault)

    def reset(self) -> None:
        with self._lock:
            self._replies.clear()
            self._faults.clear()
            self.requests.clear()
            self.other_requests.clear()
            self._aborted = 0

    @property
    def aborted(self) -> int:
        with self._lock:
            return self._aborted

    def wait_for_abort(self, count: int, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._aborted >= count, timeout)

    def wait_for_requests(self, count: int, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: len(self.requests) >= count, timeout)

    def record(self, request: RecordedRequest, *, chat: bool) -> int:
        """Keep `request`; how many requests have arrived with it (see `arrivals`)."""
        with self._changed:
            (self.requests if chat else self.other_requests).append(request)
            self._changed.notify_all()
            return len(self.requests) + len(self.other_requests)

    def arrivals(self) -> int:
        """How many requests have arrived so far, of every kind."""
        with self._changed:
            return len(self.requests) + len(self.other_requests)

    def note_abort(self) -> None:
        with self._changed:
            self._aborted += 1
            self._changed.notify_all()

    def next_fault(self) -> PendingFault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def next_item(self) -> ScriptItem | None:
        with self._lock:
            return self._replies.popleft() if self._replies else None

    def next_id(self) -> str:
        with self._lock:
            self._counter += 1
            return f"chatcmpl-test-{self._counter}"
