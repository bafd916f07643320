"""The scripted server itself: its settings, lifecycle, addresses and scripting methods."""

from __future__ import annotations

import contextlib
import functools
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self

from ctxchat.testing.server.faults import Fault, PendingFault
from ctxchat.testing.server.flavours import Flavour, llama_cpp_prompt_tokens
from ctxchat.testing.server.handler import Handler, HTTPServer
from ctxchat.testing.server.script import (
    RecordedRequest,
    Reply,
    Script,
    ScriptItem,
    count_prompt_tokens,
)


class ScriptedModelServer:
    """An OpenAI-compatible server on 127.0.0.1 that replies from a script and injects faults.

    It runs in daemon threads, so sync code, async tests and benchmark scripts can all use it:
    `with ScriptedModelServer() as server: ... server.base_url ...`.
    """

    def __init__(
        self,
        *,
        models: Sequence[str] = ("test-model",),
        flavour: Flavour | str = Flavour.OPENAI,
        n_ctx: int | None = 4096,
        trained_ctx: int = 32768,
        props_nested: bool = True,
        chunk_size: int = 6,
        chunks: int | None = None,
        latency: float = 0.0,
        requires_key: str | None = None,
        reject_stream_options: bool = False,
        ignore_stream_options: bool = False,
        reject_unknown_models: bool = False,
        enforce_n_ctx: bool | None = None,
        cached_tokens: int | None = None,
        prompt_tokens: Callable[[Sequence[Mapping[str, Any]]], int] | None = None,
        drops_system: bool = False,
        default_reply: str | Callable[[dict[str, Any]], str] | None = None,
        tokenizer_fault: str | None = None,
        served_model: str | None = None,
        interrupt_requests: bool | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.models = list(models)
        self.flavour = Flavour(flavour)
        self.n_ctx = n_ctx
        self.trained_ctx = trained_ctx
        self.props_nested = props_nested
        self.chunk_size = chunk_size
        self.chunks = chunks
        self.latency = latency
        self.requires_key = requires_key
        self.reject_stream_options = reject_stream_options
        self.ignore_stream_options = ignore_stream_options
        self.reject_unknown_models = reject_unknown_models
        # llama.cpp and llama-cpp-python refuse an over-long prompt before reading it.
        self.enforce_n_ctx = (
            self.flavour in (Flavour.LLAMA_CPP, Flavour.LLAMA_CPP_PYTHON)
            if enforce_n_ctx is None
            else enforce_n_ctx
        )
        self.cached_tokens = cached_tokens
        """`usage.prompt_tokens_details.cached_tokens` of every reply; None: not reported
        (llama.cpp: what its prompt shares with the previous one, see `cached_tokens`)."""
        self.previous_prompt: list[str] = []
        """llama.cpp: the tokens of the last prompt read, which the next one may reuse."""
        self.drops_system = drops_system
        """llama.cpp: the chat template leaves system messages out of the prompt it renders
        and counts (as templates of models without a system role may)."""
        self.prompt_tokens = prompt_tokens or (
            functools.partial(llama_cpp_prompt_tokens, self)
            if self.flavour is Flavour.LLAMA_CPP
            else count_prompt_tokens
        )
        """The usage a request reports: llama.cpp counts its rendered template; others
        OpenAI's chat overhead on simple counts (see `script.count_prompt_tokens`)."""
        self.default_reply = default_reply
        self.tokenizer_fault = tokenizer_fault
        """How the tokenize endpoint misbehaves: "garbage" (200, not a count), "error" (500),
        "stall" (answers after 30 s); None: it counts. May be changed while serving."""
        self.interrupt_requests = (
            self.flavour is Flavour.LLAMA_CPP_PYTHON
            if interrupt_requests is None
            else interrupt_requests
        )
        """End a streamed reply early, with [DONE], when another request arrives while it
        streams: llama-cpp-python's `interrupt_requests`, on by default there."""
        self.served_model = served_model
        """The model replies name, whatever was asked (a server restarted with another model);
        None: the one asked for. May be changed while serving."""
        self.models_held: threading.Event | None = None
        """While set to an event not yet set, `GET /v1/models` waits for it (a slow remote
        server; a test's release). May be changed while serving."""
        self.reading_held: threading.Event | None = None
        """While set to an event not yet set, a chat completion waits for it before it
        answers: a small model reading a prompt on a busy machine; a test's release. May be
        changed while serving."""
        self.asides_held: threading.Event | None = None
        """While set to an event not yet set, a POST other than a chat completion (a count,
        a rendering) waits for it before it arrives, i.e. before it is recorded and can cut
        a streamed reply short: a request slow on its way; a test's release. May be changed
        while serving."""
        self.script_log = Script()
        self.requests: list[RecordedRequest] = self.script_log.requests
        self.other_requests: list[RecordedRequest] = self.script_log.other_requests
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: HTTPServer | None = None
        self._bound_port: int | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind a free port (unless one was given) and serve in a daemon thread."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = HTTPServer((self._host, self._port), Handler)
        httpd.owner = self
        self._httpd = httpd
        self._bound_port = int(httpd.server_address[1])
        # A short poll interval keeps stop() fast: tests start many servers.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake stalled replies and close every open connection."""
        httpd = self._httpd
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            # Wakes handler threads blocked on a keep-alive read, so nothing lingers.
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def serve_until_interrupted(self) -> None:
        """Block the calling thread until Ctrl-C (used by the demo CLI)."""
        self.start()
        try:
            while not self._stopping.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    # -- addresses -----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (known from start on, and still after stop)."""
        if self._bound_port is None:
            raise RuntimeError("the server was never started")
        return self._bound_port

    @property
    def root_url(self) -> str:
        """`http://127.0.0.1:PORT`, where the non-OpenAI endpoints live."""
        return f"http://{self._host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, `http://127.0.0.1:PORT/v1`."""
        return f"{self.root_url}/v1"

    # -- scripting -------------------------------------------------------------------------------

    def script(self, *replies: ScriptItem) -> None:
        """Queue replies: text, a `Reply`, or a callable taking the request body."""
        self.script_log.add_replies(replies)

    def fail_next(self, fault: Fault | str, **options: Any) -> None:
        """Make the next chat request fail with `fault` (queued: one fault per request).

        Options: `retry_after` (rate_limit), `status` and `body` (server_error), `after` (content
        chunks sent before drop/stall/error_in_stream), `after_finish=True` (drop or stall right
        after the finish chunk, before usage and [DONE]), `seconds` (stall) or `until` (stall until that `threading.Event` is set), `message`
        (error_in_stream, auth), `n_ctx` (overflow faults), `reasoning` and `field` (reasoning,
        think_tags), `text` (replaces the reply text).
        """
        self.script_log.add_fault(PendingFault(Fault(fault), dict(options)))

    def reset(self) -> None:
        """Forget queued replies, faults and recorded requests."""
        self.script_log.reset()

    def wait_for_abort(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until `count` streams were abandoned by the client; False on timeout."""
        return self.script_log.wait_for_abort(count, timeout)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> bool:
        """Block until `count` chat requests arrived; False on timeout."""
        return self.script_log.wait_for_requests(count, timeout)

    # -- used while answering --------------------------------------------------------------------

    def next_reply(self, body: dict[str, Any]) -> Reply:
        """The next scripted reply to `body`, or the default one."""
        item = self.script_log.next_item()
        if item is None:
            item = self._default_reply(body)
        if callable(item):
            item = item(body)
        return item if isinstance(item, Reply) else Reply(text=item)

    def _default_reply(self, body: dict[str, Any]) -> str | Reply:
        if self.default_reply is not None:
            if callable(self.default_reply):
                return self.default_reply(body)
            return self.default_reply
        if self.chunks is not None:
            return " ".join(f"w{i}" for i in range(self.chunks))
        messages = body.get("messages") or []
        last = messages[-1].get("content", "") if messages else ""
        return f"You said: {last}" if isinstance(last, str) else "You said something."

    def pieces(self, text: str) -> list[str]:
        """`text` cut into the chunks it streams in."""
        if self.chunks is not None and self.chunks > 0:
            return _split_even(text, self.chunks)
        size = max(1, self.chunk_size)
        return [text[i : i + size] for i in range(0, len(text), size)]

    def register(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def unregister(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)

    def stall(self, options: Mapping[str, Any]) -> bool:
        """Hold a stalled reply: until the `until` event is set (a test's release), else for
        `seconds` (30 by default); True if the server is stopping."""
        release = options.get("until")
        if isinstance(release, threading.Event):
            while not release.wait(0.05):
                if self._stopping.is_set():
                    return True
            return self._stopping.is_set()
        return self.pause(float(options.get("seconds", 30)))

    def pause(self, seconds: float) -> bool:
        """Wait, but return at once when the server stops; True if it is stopping."""
        if seconds <= 0:
            return self._stopping.is_set()
        return self._stopping.wait(seconds)


def _split_even(text: str, count: int) -> list[str]:
    """Split `text` into exactly `count` non-empty pieces, padding short text with filler.

    Empty text stays empty: a reply without reasoning must not stream filler reasoning.
    """
    if not text:
        return []
    while len(text) < count:
        text += " w"
    size, extra = divmod(len(text), count)
    pieces: list[str] = []
    start = 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces
