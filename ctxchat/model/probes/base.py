"""What a server probe is: side requests it may send, and the detection it returns."""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

# Where the context window came from, in the words the budget panel shows.
WINDOW_SOURCES = (
    "server",
    "probed",
    "learned from an error",
    "config",
    "model file",
    "table",
    "default",
)


@dataclass(frozen=True)
class Answer:
    """The answer to one side request: whether the server answered, its status and JSON."""

    reached: bool
    status: int | None = None
    data: Any = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.status == 200


Fetch = Callable[[str, str, Mapping[str, Any] | None, float | None], Awaitable[Answer]]


class SideRequests:
    """Side requests to one server while it is described; each one is sent at most once."""

    def __init__(
        self,
        fetch: Fetch,
        *,
        root_url: str,
        base_url: str,
        local: bool,
        slow_timeout: float = 30.0,
        reading_timeout: float = 300.0,
    ) -> None:
        self.root_url = root_url
        self.slow_timeout = slow_timeout
        """How long a probe that makes the server work (tokenize a long prompt) may take."""
        self.reading_timeout = reading_timeout
        """How long a probe the model itself answers may take: as long as a reply may take
        to start (a small local model on a busy machine reads slowly)."""
        self.base_url = base_url
        self.local = local
        self._fetch = fetch
        self._sent: dict[str, asyncio.Future[Answer]] = {}

    def get(self, url: str) -> Awaitable[Answer]:
        return self._once("GET", url, None, None)

    def answered(self, url: str, answer: Answer) -> None:
        """`answer` is what a GET of `url` says: it was just received another way, and is
        not asked for again."""
        done: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        done.set_result(answer)
        self._sent[self._key("GET", url, None)] = done

    def post(
        self, url: str, payload: Mapping[str, Any], *, timeout: float | None = None
    ) -> Awaitable[Answer]:
        return self._once("POST", url, payload, timeout)

    def _once(
        self, method: str, url: str, payload: Mapping[str, Any] | None, timeout: float | None
    ) -> Awaitable[Answer]:
        key = self._key(method, url, payload)
        task = self._sent.get(key)
        if task is None:
            task = asyncio.ensure_future(self._fetch(method, url, payload, timeout))
            self._sent[key] = task
        return asyncio.shield(task)

    @staticmethod
    def _key(method: str, url: str, payload: Mapping[str, Any] | None) -> str:
        return f"{method} {url} {json.dumps(payload, sort_keys=True)}"


@dataclass(frozen=True)
class Context:
    """What is known before probing: the model, the host, and a window learned earlier."""

    model: str
    host: str
    learned_window: int | None = None
    tokenizer: str | None = None
    """The tokenize endpoint found (see `probes.tokenizers`), or None."""


@dataclass(frozen=True)
class Detection:
    """What one probe found: the server kind (None: unknown), its window and its caveats.

    `fallback` is the window this kind of server runs with when it reports none;
    `table_misleads` says the model's documented window is not what such a server runs.
    """

    kind: str | None
    window: int | None = None
    source: str = "server"
    fallback: int | None = None
    table_misleads: bool = False
    warnings: tuple[str, ...] = ()


class ServerProbe(ABC):
    """Recognises one kind of server from its own endpoints."""

    local_only: bool = True
    """Skipped for hosted APIs, which would only answer these side requests with 404."""

    @abstractmethod
    async def detect(self, ask: SideRequests, context: Context) -> Detection | None:
        """The detection, or None when the server is not of this kind."""


def int_field(data: object, *path: str) -> int | None:
    """A positive int at `path` inside nested dicts, or None."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data if isinstance(data, int) and not isinstance(data, bool) and data > 0 else None
