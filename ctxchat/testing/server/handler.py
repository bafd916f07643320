"""The scripted server's HTTP handler: reads requests, routes them, writes the answers."""

from __future__ import annotations

import contextlib
import json
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, cast

from ctxchat.testing.server.answers import Answer
from ctxchat.testing.server.faults import Fault, PendingFault, shape_reply, status_answer
from ctxchat.testing.server.flavours import (
    cached_tokens,
    get_answer,
    overflow_fault,
    post_answer,
    served_model,
)
from ctxchat.testing.server.replies import ReplyWriter, usage_of
from ctxchat.testing.server.script import RecordedRequest
from ctxchat.testing.server.sse import EventWriter

if TYPE_CHECKING:
    from ctxchat.testing.server.scripted import ScriptedModelServer


class HTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that knows the scripted server it serves."""

    daemon_threads = True
    block_on_close = False
    owner: ScriptedModelServer


class Handler(BaseHTTPRequestHandler):
    """One connection: GET and POST routed to the flavour's endpoints and the chat reply."""

    protocol_version = "HTTP/1.1"
    # Idle keep-alive connections close after this long, so sync users that never
    # close their client do not pin threads forever.
    timeout = 30

    @property
    def owner(self) -> ScriptedModelServer:
        return cast(HTTPServer, self.server).owner

    def setup(self) -> None:
        super().setup()
        self.owner.register(self.connection)

    def finish(self) -> None:
        self.owner.unregister(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        # Silence per-request logging: tests and demos would drown in it.
        return

    # -- Transport, for ReplyWriter --------------------------------------------------------------

    def send(self, answer: Answer) -> None:
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(answer.body)

    def drop(self) -> None:
        # An abrupt close without the terminating chunk: the client sees a broken body.
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)

    def open_stream(self) -> EventWriter:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        return EventWriter(self.wfile)

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
        self.send(
            Answer.error(
                401,
                f"Incorrect API key provided: {presented}.",
                type="invalid_request_error",
                param=None,
                code="invalid_api_key",
            )
        )
        return False

    def _remember(self, path: str, body: object, *, chat: bool, raw: bytes = b"") -> int:
        recorded = body if isinstance(body, dict) else {}
        headers = dict(self.headers.items())
        client = (str(self.client_address[0]), int(self.client_address[1]))
        request = RecordedRequest(recorded, path=path, headers=headers, client=client, raw=raw)
        return self.owner.script_log.record(request, chat=chat)

    # -- routing ---------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self._remember(path, {}, chat=False)
        if not self._authorized():
            return
        held = self.owner.models_held
        if path == "/v1/models" and held is not None and self.owner.stall({"until": held}):
            return  # stopping
        self.send(get_answer(self.owner, path))

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        raw, body = self._read_json()
        chat = path == "/v1/chat/completions" and isinstance(body, dict)
        held = self.owner.asides_held
        if not chat and held is not None and self.owner.stall({"until": held}):
            return  # stopping
        arrived = self._remember(path, body, chat=chat, raw=raw)
        if not self._authorized():
            return
        if not isinstance(body, dict):
            self.send(
                Answer.error(400, "Request body is not valid JSON", type="invalid_request_error")
            )
            return
        if path == "/v1/chat/completions":
            self._chat(body, arrived)
        else:
            self.send(post_answer(self.owner, path, body))

    # -- chat ------------------------------------------------------------------------------------

    def _chat(self, body: dict[str, Any], arrived: int) -> None:
        """Answer a chat completion, the `arrived`th request to reach the server."""
        owner = self.owner
        held = owner.reading_held
        if held is not None and owner.stall({"until": held}):
            return  # stopping
        model = str(body.get("model", ""))
        stream = bool(body.get("stream"))
        stream_options = body.get("stream_options")
        if owner.reject_stream_options and stream_options is not None:
            self.send(
                Answer.error(
                    400,
                    "Unrecognized request argument supplied: stream_options",
                    type="invalid_request_error",
                    param="stream_options",
                    code=None,
                )
            )
            return
        fault = owner.script_log.next_fault()
        if fault is not None and fault.fault is Fault.HANG_UP:
            self.drop()
            return
        if fault is None and owner.reject_unknown_models and model not in owner.models:
            fault = PendingFault(Fault.UNKNOWN_MODEL)
        messages = body.get("messages") or []
        prompt_tokens = owner.prompt_tokens(messages)
        too_long = owner.n_ctx is not None and prompt_tokens > owner.n_ctx
        if fault is None and owner.enforce_n_ctx and too_long:
            fault = PendingFault(overflow_fault(owner.flavour, stream=stream))
        if fault is not None:
            answer = status_answer(
                fault,
                model=model,
                prompt_tokens=prompt_tokens,
                n_ctx=owner.n_ctx or 4096,
                authorization=self.headers.get("Authorization", ""),
            )
            if answer is not None:
                self.send(answer)
                return
        reply = owner.next_reply(body)
        if fault is not None:
            reply = shape_reply(fault, reply)
        include_usage = (
            isinstance(stream_options, dict)
            and bool(stream_options.get("include_usage"))
            and not owner.ignore_stream_options
        )
        writer = ReplyWriter(
            owner,
            self,
            model=served_model(owner, model),
            reply=reply,
            usage=usage_of(prompt_tokens, reply, cached_tokens(owner, messages)),
            fault=fault,
            arrived=arrived,
        )
        if not stream:
            writer.whole()
        elif not writer.streamed(include_usage=include_usage):
            self.close_connection = True
