"""A recording HTTP proxy on loopback: forwards every request to a real server and keeps the
bodies it passed on, to compare what ctxchat shows with what the server received."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast
from urllib.parse import urlsplit

# Hop-by-hop headers are the proxy's own business; the body is relayed whole.
_NOT_RELAYED = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class RecordingProxy:
    """`with RecordingProxy("http://127.0.0.1:8765") as proxy: ... proxy.base_url ...`;
    `proxy.bodies` holds each request's decoded JSON body (None when it was not JSON)."""

    def __init__(self, upstream: str, *, timeout: float = 300.0) -> None:
        parts = urlsplit(upstream)
        self.upstream_host = parts.hostname or "127.0.0.1"
        self.upstream_port = parts.port or 80
        self.timeout = timeout
        self.requests: list[tuple[str, str, Any]] = []
        """(method, path, JSON body) of each request, in order."""
        self.answers: list[tuple[str, int, Any]] = []
        """(path, HTTP status, JSON body of the request it answered) of each answer, in the
        order the server answered them; a failed relay counts as 502."""
        self._lock = threading.Lock()
        self._httpd = _ProxyServer(("127.0.0.1", 0), _ProxyHandler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def bodies(self) -> list[Any]:
        with self._lock:
            return [body for _method, _path, body in self.requests]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def record(self, method: str, path: str, raw: bytes) -> None:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        with self._lock:
            self.requests.append((method, path, body))

    def answered(self, path: str, status: int, raw: bytes) -> None:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        with self._lock:
            self.answers.append((path, status, body))

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: RecordingProxy


class _ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._relay("GET")

    def do_POST(self) -> None:
        self._relay("POST")

    def _relay(self, method: str) -> None:
        owner = cast(_ProxyServer, self.server).owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        owner.record(method, self.path, raw)
        upstream = http.client.HTTPConnection(
            owner.upstream_host, owner.upstream_port, timeout=owner.timeout
        )
        try:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _NOT_RELAYED}
            upstream.request(method, self.path, body=raw or None, headers=headers)
            response = upstream.getresponse()
            data = response.read()
        except OSError as error:
            data = json.dumps({"error": {"message": f"proxy: {error}"}}).encode()
            owner.answered(self.path, 502, raw)
            self._answer(502, [("Content-Type", "application/json")], data)
            return
        finally:
            with contextlib.suppress(OSError):
                upstream.close()
        owner.answered(self.path, response.status, raw)
        kept = [(k, v) for k, v in response.getheaders() if k.lower() not in _NOT_RELAYED]
        self._answer(response.status, kept, data)

    def _answer(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        # The client may have hung up (it stopped reading a stream): nothing left to do.
        with contextlib.suppress(OSError):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
