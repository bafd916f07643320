"""A scripted OpenAI-compatible model server on loopback, for tests, demos and benchmarks."""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast
from urllib.parse import unquote

__all__ = [
    "Fault",
    "Flavour",
    "RecordedRequest",
    "Reply",
    "ScriptedModelServer",
    "count_prompt_tokens",
    "simple_token_count",
]

_WORD = re.compile(r"\w+|[^\w\s]")


def simple_token_count(text: str) -> int:
    """Count words and punctuation marks: the server's deterministic stand-in for a tokenizer."""
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


class Flavour(StrEnum):
    """Which real server the extra endpoints imitate."""

    OPENAI = "openai"
    LLAMA_CPP = "llama.cpp"
    LLAMA_CPP_PYTHON = "llama-cpp-python"
    OLLAMA = "ollama"
    LMSTUDIO = "lmstudio"
    VLLM = "vllm"


class Fault(StrEnum):
    """A failure `fail_next` injects into the next chat request."""

    AUTH = "auth"
    FORBIDDEN = "forbidden"
    UNKNOWN_MODEL = "unknown_model"
    RATE_LIMIT = "rate_limit"
    SERVER_ERROR = "server_error"
    CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded"
    LLAMA_CPP_CONTEXT = "exceed_context_size_error"
    ERROR_IN_STREAM = "error_in_stream"
    EMPTY_STREAM = "empty_stream"
    DROP = "drop"
    STALL = "stall"
    BAD_JSON = "bad_json"
    FINISH_LENGTH = "finish_length"
    REASONING = "reasoning"
    THINK_TAGS = "think_tags"


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


@dataclass(frozen=True)
class _PendingFault:
    fault: Fault
    options: dict[str, Any] = field(default_factory=dict)


LMSTUDIO_OVERFLOW = (
    "Trying to keep the first {prompt} tokens when context the overflows. However, the model "
    "is loaded with context length of only {n_ctx} tokens, which is not enough. Try to load "
    "the model with a larger context length, or provide a shorter input"
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
        enforce_n_ctx: bool = False,
        cached_tokens: int | None = None,
        prompt_tokens: Callable[[Sequence[Mapping[str, Any]]], int] = count_prompt_tokens,
        default_reply: str | Callable[[dict[str, Any]], str] | None = None,
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
        self.enforce_n_ctx = enforce_n_ctx
        self.cached_tokens = cached_tokens
        self.prompt_tokens = prompt_tokens
        self.default_reply = default_reply
        self.requests: list[RecordedRequest] = []
        self.other_requests: list[RecordedRequest] = []
        self._host = host
        self._port = port
        self._script: deque[ScriptItem] = deque()
        self._faults: deque[_PendingFault] = deque()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._aborted = 0
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._bound_port: int | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind a free port (unless one was given) and serve in a daemon thread."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _HTTPServer((self._host, self._port), _Handler)
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
        with self._lock:
            self._script.extend(replies)

    def fail_next(self, fault: Fault | str, **options: Any) -> None:
        """Make the next chat request fail with `fault` (queued: one fault per request).

        Options: `retry_after` (rate_limit), `status` and `body` (server_error), `after` (content
        chunks sent before drop/stall/error_in_stream), `after_finish=True` (drop or stall right
        after the finish chunk, before usage and [DONE]), `seconds` (stall), `message`
        (error_in_stream, auth), `n_ctx` (overflow faults), `reasoning` and `field` (reasoning,
        think_tags), `text` (replaces the reply text).
        """
        with self._lock:
            self._faults.append(_PendingFault(Fault(fault), dict(options)))

    def reset(self) -> None:
        """Forget queued replies, faults and recorded requests."""
        with self._lock:
            self._script.clear()
            self._faults.clear()
            self.requests.clear()
            self.other_requests.clear()
            self._aborted = 0

    @property
    def aborted_streams(self) -> int:
        """How many streamed replies the client abandoned before the end."""
        with self._lock:
            return self._aborted

    def wait_for_abort(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until `count` streams were abandoned by the client; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: self._aborted >= count, timeout)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> bool:
        """Block until `count` chat requests arrived; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self.requests) >= count, timeout)

    # -- used by the handler ---------------------------------------------------------------------

    def _record(self, request: RecordedRequest, *, chat: bool) -> None:
        with self._changed:
            (self.requests if chat else self.other_requests).append(request)
            self._changed.notify_all()

    def _note_abort(self) -> None:
        with self._changed:
            self._aborted += 1
            self._changed.notify_all()

    def _next_fault(self) -> _PendingFault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            item: ScriptItem | None = self._script.popleft() if self._script else None
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

    def _next_id(self) -> str:
        with self._lock:
            self._counter += 1
            return f"chatcmpl-test-{self._counter}"

    def _register(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def _unregister(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)

    def _pause(self, seconds: float) -> bool:
        """Wait, but return at once when the server stops; True if it is stopping."""
        if seconds <= 0:
            return self._stopping.is_set()
        return self._stopping.wait(seconds)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: ScriptedModelServer


class _ClientGone(Exception):
    """The client closed the connection while we were writing."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Idle keep-alive connections close after this long, so sync users that never
    # close their client do not pin threads forever.
    timeout = 30

    @property
    def owner(self) -> ScriptedModelServer:
        return cast(_HTTPServer, self.server).owner

    def setup(self) -> None:
        super().setup()
        self.owner._register(self.connection)

    def finish(self) -> None:
        self.owner._unregister(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        # Silence per-request logging: tests and demos would drown in it.
        return

    # -- plumbing ------------------------------------------------------------------------------

    def _read_json(self) -> tuple[bytes, Any]:
        """The body's bytes and their decoded JSON (None when they are not JSON)."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return raw, {}
        try:
            return raw, json.loads(raw)
        except ValueError:
            return raw, None

    def _send_json(
        self, status: int, payload: object, headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self._send_bytes(status, data, "application/json", headers)

    def _send_bytes(
        self,
        status: int,
        data: bytes,
        content_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, **fields: Any) -> None:
        self._send_json(status, {"error": {"message": message, **fields}})

    def _authorized(self) -> bool:
        key = self.owner.requires_key
        if key is None:
            return True
        given = self.headers.get("Authorization", "")
        if given == f"Bearer {key}":
            return True
        presented = given.removeprefix("Bearer ")
        # Real servers echo (part of) the wrong key; echoing all of it lets tests prove
        # that the client redacts it.
        self._error(
            401,
            f"Incorrect API key provided: {presented}.",
            type="invalid_request_error",
            param=None,
            code="invalid_api_key",
        )
        return False

    def _remember(self, path: str, body: object, *, chat: bool, raw: bytes = b"") -> None:
        recorded = body if isinstance(body, dict) else {}
        headers = dict(self.headers.items())
        client = (str(self.client_address[0]), int(self.client_address[1]))
        request = RecordedRequest(recorded, path=path, headers=headers, client=client, raw=raw)
        self.owner._record(request, chat=chat)

    # -- routing ---------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        owner = self.owner
        self._remember(path, {}, chat=False)
        if not self._authorized():
            return
        flavour = owner.flavour
        if path == "/v1/models":
            self._send_json(200, {"object": "list", "data": self._model_entries()})
        elif path == "/props" and flavour is Flavour.LLAMA_CPP:
            self._send_json(200, self._props())
        elif path == "/api/tags" and flavour is Flavour.OLLAMA:
            self._send_json(200, {"models": [{"name": m, "model": m} for m in owner.models]})
        elif path == "/api/version" and flavour is Flavour.OLLAMA:
            self._send_json(200, {"version": "0.6.0"})
        elif path == "/api/v0/models" and flavour is Flavour.LMSTUDIO:
            self._send_json(200, {"object": "list", "data": [self._lms(m) for m in owner.models]})
        elif path.startswith("/api/v0/models/") and flavour is Flavour.LMSTUDIO:
            model = unquote(path.removeprefix("/api/v0/models/"))
            if model in owner.models:
                self._send_json(200, self._lms(model))
            else:
                self._error(404, f"Model '{model}' not found")
        else:
            self._error(404, f"File Not Found: {path}")

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        owner = self.owner
        raw, body = self._read_json()
        chat = path == "/v1/chat/completions" and isinstance(body, dict)
        self._remember(path, body, chat=chat, raw=raw)
        if not self._authorized():
            return
        if not isinstance(body, dict):
            self._error(400, "Request body is not valid JSON", type="invalid_request_error")
            return
        flavour = owner.flavour
        if path == "/v1/chat/completions":
            self._chat(body)
        elif path == "/tokenize" and flavour is Flavour.LLAMA_CPP:
            content = str(body.get("content", ""))
            self._send_json(200, {"tokens": list(range(simple_token_count(content)))})
        elif path == "/extras/tokenize/count" and flavour is Flavour.LLAMA_CPP_PYTHON:
            self._send_json(200, {"count": simple_token_count(str(body.get("input", "")))})
        elif path == "/api/show" and flavour is Flavour.OLLAMA:
            self._ollama_show(str(body.get("model") or body.get("name") or ""))
        else:
            self._error(404, f"File Not Found: {path}")

    # -- flavour endpoints ----------------------------------------------------------------------

    def _model_entries(self) -> list[dict[str, Any]]:
        owner = self.owner
        entries: list[dict[str, Any]] = []
        for model in owner.models:
            entry: dict[str, Any] = {"id": model, "object": "model", "created": 0}
            entry["owned_by"] = "vllm" if owner.flavour is Flavour.VLLM else "organization"
            if owner.flavour is Flavour.VLLM and owner.n_ctx is not None:
                entry["max_model_len"] = owner.n_ctx
            entries.append(entry)
        return entries

    def _props(self) -> dict[str, Any]:
        n_ctx = self.owner.n_ctx
        # Newer llama.cpp nests n_ctx under default_generation_settings, older puts it on top.
        if self.owner.props_nested:
            return {"default_generation_settings": {"n_ctx": n_ctx}, "total_slots": 1}
        return {"n_ctx": n_ctx, "total_slots": 1}

    def _lms(self, model: str) -> dict[str, Any]:
        owner = self.owner
        entry: dict[str, Any] = {
            "id": model,
            "object": "model",
            "type": "llm",
            "max_context_length": owner.trained_ctx,
            "state": "loaded" if owner.n_ctx is not None else "not-loaded",
        }
        if owner.n_ctx is not None:
            entry["loaded_context_length"] = owner.n_ctx
        return entry

    def _ollama_show(self, model: str) -> None:
        owner = self.owner
        if model not in owner.models:
            self._error(404, f"model '{model}' not found")
            return
        parameters = 'stop "<end_of_turn>"'
        if owner.n_ctx is not None:
            parameters = f"num_ctx {owner.n_ctx}\n{parameters}"
        self._send_json(
            200,
            {
                "parameters": parameters,
                "details": {"family": "gemma3"},
                "model_info": {
                    "general.architecture": "gemma3",
                    "gemma3.context_length": owner.trained_ctx,
                },
            },
        )

    # -- chat ------------------------------------------------------------------------------------

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.owner
        model = str(body.get("model", ""))
        stream = bool(body.get("stream"))
        stream_options = body.get("stream_options")
        if owner.reject_stream_options and stream_options is not None:
            self._error(
                400,
                "Unrecognized request argument supplied: stream_options",
                type="invalid_request_error",
                param="stream_options",
                code=None,
            )
            return
        fault = owner._next_fault()
        if fault is None and owner.reject_unknown_models and model not in owner.models:
            fault = _PendingFault(Fault.UNKNOWN_MODEL)
        messages = body.get("messages") or []
        prompt_tokens = owner.prompt_tokens(messages)
        too_long = owner.n_ctx is not None and prompt_tokens > owner.n_ctx
        if fault is None and owner.enforce_n_ctx and too_long:
            fault = _PendingFault(self._overflow_fault())
        if fault is not None and self._status_fault(fault, model, prompt_tokens):
            return
        reply = owner._next_reply(body)
        if fault is not None:
            reply = self._shape_reply(fault, reply)
        include_usage = (
            isinstance(stream_options, dict)
            and bool(stream_options.get("include_usage"))
            and not owner.ignore_stream_options
        )
        usage = self._usage(prompt_tokens, reply)
        if stream:
            self._stream(model, reply, usage if include_usage else None, fault)
        else:
            self._whole(model, reply, usage, fault)

    def _overflow_fault(self) -> Fault:
        flavour = self.owner.flavour
        if flavour is Flavour.LLAMA_CPP:
            return Fault.LLAMA_CPP_CONTEXT
        if flavour is Flavour.LMSTUDIO:
            return Fault.ERROR_IN_STREAM
        return Fault.CONTEXT_LENGTH_EXCEEDED

    def _status_fault(self, pending: _PendingFault, model: str, prompt_tokens: int) -> bool:
        """Answer faults that are an HTTP error status; True when the request is handled."""
        fault, options = pending.fault, pending.options
        n_ctx = options.get("n_ctx", self.owner.n_ctx or 4096)
        if fault is Fault.AUTH:
            presented = self.headers.get("Authorization", "").removeprefix("Bearer ")
            message = options.get("message", f"Incorrect API key provided: {presented}.")
            self._error(401, message, type="invalid_request_error", code="invalid_api_key")
        elif fault is Fault.FORBIDDEN:
            self._error(
                403,
                f"Project `proj_test` does not have access to model `{model}`",
                type="invalid_request_error",
                code="model_not_found",
            )
        elif fault is Fault.UNKNOWN_MODEL:
            self._error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                type="invalid_request_error",
                param=None,
                code="model_not_found",
            )
        elif fault is Fault.RATE_LIMIT:
            retry_after = options.get("retry_after", 1)
            headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
            self._send_json(
                429,
                {
                    "error": {
                        "message": "Rate limit reached for requests per min (RPM).",
                        "type": "requests",
                        "code": "rate_limit_exceeded",
                    }
                },
                headers,
            )
        elif fault is Fault.SERVER_ERROR:
            status = int(options.get("status", 500))
            text = options.get("body")
            if isinstance(text, str):
                self._send_bytes(status, text.encode(), "text/html")
            else:
                self._error(
                    status,
                    "The server had an error while processing your request.",
                    type="server_error",
                )
        elif fault is Fault.CONTEXT_LENGTH_EXCEEDED:
            self._error(
                400,
                f"This model's maximum context length is {n_ctx} tokens. However, your "
                f"messages resulted in {prompt_tokens} tokens. Please reduce the length of "
                "the messages.",
                type="invalid_request_error",
                param="messages",
                code="context_length_exceeded",
            )
        elif fault is Fault.LLAMA_CPP_CONTEXT:
            self._error(
                400,
                f"request ({prompt_tokens} tokens) exceeds the available context size "
                f"({n_ctx} tokens), try increasing it",
                code=400,
                type="exceed_context_size_error",
                n_prompt_tokens=prompt_tokens,
                n_ctx=n_ctx,
            )
        else:
            return False
        return True

    def _shape_reply(self, pending: _PendingFault, reply: Reply) -> Reply:
        """Faults that change the reply itself rather than the transport."""
        fault, options = pending.fault, pending.options
        text = options.get("text", reply.text)
        if fault is Fault.FINISH_LENGTH:
            return Reply(text, reply.reasoning, reply.reasoning_field, finish_reason="length")
        if fault is Fault.REASONING:
            reasoning = options.get("reasoning", "Let me think about this.")
            field_name = options.get("field", "reasoning_content")
            return Reply(text, reasoning, field_name, reply.finish_reason)
        if fault is Fault.THINK_TAGS:
            thought = options.get("reasoning", "Let me think about this.")
            return Reply(f"<think>\n{thought}\n</think>\n\n{text}", "", finish_reason="stop")
        return Reply(text, reply.reasoning, reply.reasoning_field, reply.finish_reason)

    def _usage(self, prompt_tokens: int, reply: Reply) -> dict[str, Any]:
        completion = simple_token_count(reply.text) + simple_token_count(reply.reasoning)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
        }
        if self.owner.cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": self.owner.cached_tokens}
        return usage

    def _pieces(self, text: str) -> list[str]:
        owner = self.owner
        if owner.chunks is not None and owner.chunks > 0:
            return _split_even(text, owner.chunks)
        size = max(1, owner.chunk_size)
        return [text[i : i + size] for i in range(0, len(text), size)]

    def _whole(
        self, model: str, reply: Reply, usage: dict[str, Any], fault: _PendingFault | None
    ) -> None:
        owner = self.owner
        kind = fault.fault if fault is not None else None
        options = fault.options if fault is not None else {}
        if kind is Fault.DROP:
            self._drop()
            return
        if kind is Fault.STALL and owner._pause(float(options.get("seconds", 30))):
            return
        if kind is Fault.ERROR_IN_STREAM:
            self._send_json(200, {"error": self._in_stream_message(fault, usage)})
            return
        if kind is Fault.BAD_JSON:
            self._send_bytes(200, b"{not json", "application/json")
            return
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.reasoning:
            message[reply.reasoning_field] = reply.reasoning
        choices = (
            []
            if kind is Fault.EMPTY_STREAM
            else [{"index": 0, "message": message, "finish_reason": reply.finish_reason}]
        )
        self._send_json(
            200,
            {
                "id": self._next_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": choices,
                "usage": usage,
            },
        )

    def _next_id(self) -> str:
        return self.owner._next_id()

    def _in_stream_message(self, fault: _PendingFault | None, usage: dict[str, Any]) -> str:
        options = fault.options if fault is not None else {}
        default = LMSTUDIO_OVERFLOW.format(
            prompt=usage["prompt_tokens"], n_ctx=options.get("n_ctx", self.owner.n_ctx or 4096)
        )
        return str(options.get("message", default))

    def _drop(self) -> None:
        # An abrupt close without the terminating chunk: the client sees a broken body.
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)

    def _stream(
        self,
        model: str,
        reply: Reply,
        usage: dict[str, Any] | None,
        fault: _PendingFault | None,
    ) -> None:
        owner = self.owner
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self._stream_body(model, reply, usage, fault)
        except _ClientGone:
            owner._note_abort()
            self.close_connection = True

    def _stream_body(
        self,
        model: str,
        reply: Reply,
        usage: dict[str, Any] | None,
        fault: _PendingFault | None,
    ) -> None:
        owner = self.owner
        kind = fault.fault if fault is not None else None
        options = fault.options if fault is not None else {}
        # LM Studio reports its error before any content; drops and stalls come mid-reply.
        after = int(options.get("after", 0 if kind is Fault.ERROR_IN_STREAM else 2))
        ident = self._next_id()
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        if kind is Fault.EMPTY_STREAM:
            self._event("[DONE]")
            self._end()
            return
        if kind is Fault.BAD_JSON:
            self._event("{not json")
            self._end()
            return
        self._event(chunk({"role": "assistant", "content": ""}))
        for payload in reply.raw_chunks:
            self._event(json.dumps(payload))
        for piece in self._pieces(reply.reasoning):
            if owner._pause(owner.latency):
                return
            self._event(chunk({reply.reasoning_field: piece}))
        pieces = self._pieces(reply.text)
        # A fault fires before content chunk number `after` (or at the end of a short reply).
        after_finish = bool(options.get("after_finish"))
        fire_at = min(after, len(pieces)) if kind in _MID_STREAM_FAULTS else -1
        if after_finish:
            fire_at = -1
        for sent in range(len(pieces) + 1):
            if sent == fire_at:
                if kind is Fault.DROP:
                    self._drop()
                    return
                if kind is Fault.ERROR_IN_STREAM:
                    message = self._in_stream_message(fault, usage or {"prompt_tokens": 0})
                    self._event({"error": message})
                    self._end()
                    return
                if owner._pause(float(options.get("seconds", 30))):
                    return
            if sent == len(pieces):
                break
            if owner._pause(owner.latency):
                return
            self._event(chunk({"content": pieces[sent]}))
        self._event(chunk({}, reply.finish_reason))
        if after_finish and kind is Fault.DROP:
            self._drop()
            return
        if after_finish and kind is Fault.STALL and owner._pause(float(options.get("seconds", 30))):
            return
        if usage is not None:
            final = chunk({})
            final["choices"] = []
            final["usage"] = usage
            self._event(final)
        self._event("[DONE]")
        self._end()

    def _event(self, payload: object) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        self._write_chunk(f"data: {data}\n\n".encode())

    def _write_chunk(self, data: bytes) -> None:
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except OSError as exc:
            raise _ClientGone from exc

    def _end(self) -> None:
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError as exc:
            raise _ClientGone from exc


_MID_STREAM_FAULTS = frozenset({Fault.DROP, Fault.STALL, Fault.ERROR_IN_STREAM})


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


def main(argv: Sequence[str] | None = None) -> None:
    """Serve a scripted model server until Ctrl-C, for demos."""
    parser = argparse.ArgumentParser(
        prog="python -m ctxchat.testing.server", description=main.__doc__
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--model", action="append", dest="models")
    parser.add_argument("--flavour", choices=[f.value for f in Flavour], default="openai")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--latency", type=float, default=0.03, help="seconds per chunk")
    parser.add_argument("--chunk-size", type=int, default=6, help="characters per chunk")
    parser.add_argument("--reply", default=None, help="fixed reply text (default: echo)")
    parser.add_argument("--require-key", default=None, help="API key the server demands")
    args = parser.parse_args(argv)
    server = ScriptedModelServer(
        models=args.models or ["test-model"],
        flavour=args.flavour,
        n_ctx=args.n_ctx,
        latency=args.latency,
        chunk_size=args.chunk_size,
        default_reply=args.reply,
        requires_key=args.require_key,
        port=args.port,
    )
    server.start()
    print(
        f"Serving an OpenAI-compatible test server at {server.base_url} (Ctrl-C stops it)",
        flush=True,
    )
    server.serve_until_interrupted()


if __name__ == "__main__":
    main()
