"""The scripted test server itself: wire format, scripting, faults, shutdown and its CLI."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from ctxchat.testing.server import Fault, ScriptedModelServer, simple_token_count


def post(url: str, body: dict[str, Any], key: str | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


def events(raw: bytes) -> list[Any]:
    """Decoded `data:` payloads of an SSE body ("[DONE]" kept as a string)."""
    out: list[Any] = []
    for line in raw.decode().splitlines():
        if line.startswith("data: "):
            data = line.removeprefix("data: ")
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def chat(stream: bool, **extra: Any) -> dict[str, Any]:
    return {
        "model": "test-model",
        "messages": [{"role": "user", "content": "Hi there"}],
        "stream": stream,
        **extra,
    }


def test_non_streaming_reply_has_the_openai_shape(model_server: ScriptedModelServer) -> None:
    model_server.script("Hello, you.")

    status, raw = post(model_server.base_url + "/chat/completions", chat(False))

    body = json.loads(raw)
    assert status == 200
    assert body["object"] == "chat.completion"
    assert body["choices"] == [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Hello, you."},
            "finish_reason": "stop",
        }
    ]
    assert body["usage"] == {"prompt_tokens": 8, "completion_tokens": 4, "total_tokens": 12}


def test_stream_has_role_content_finish_usage_and_done(model_server: ScriptedModelServer) -> None:
    model_server.chunk_size = 4
    model_server.cached_tokens = 3
    model_server.script("abcdefghij")

    _, raw = post(
        model_server.base_url + "/chat/completions",
        chat(True, stream_options={"include_usage": True}),
    )

    received = events(raw)
    assert received[-1] == "[DONE]"
    deltas = [e["choices"][0]["delta"] for e in received[:-2]]
    assert deltas == [
        {"role": "assistant", "content": ""},
        {"content": "abcd"},
        {"content": "efgh"},
        {"content": "ij"},
        {},
    ]
    assert received[-3]["choices"][0]["finish_reason"] == "stop"
    assert received[-2]["choices"] == []
    assert received[-2]["usage"]["prompt_tokens_details"] == {"cached_tokens": 3}


def test_chunks_option_sends_exactly_that_many(model_server: ScriptedModelServer) -> None:
    model_server.chunks = 4000

    _, raw = post(model_server.base_url + "/chat/completions", chat(True))

    contents = [
        e["choices"][0]["delta"].get("content")
        for e in events(raw)
        if isinstance(e, dict) and e["choices"] and e["choices"][0]["delta"].get("content")
    ]
    assert len(contents) == 4000


def test_latency_is_per_chunk(model_server: ScriptedModelServer) -> None:
    model_server.latency = 0.05
    model_server.chunk_size = 5
    model_server.script("12345" * 4)

    started = time.perf_counter()
    post(model_server.base_url + "/chat/completions", chat(True))

    assert time.perf_counter() - started >= 0.2


def test_records_requests_with_headers(model_server: ScriptedModelServer) -> None:
    post(model_server.base_url + "/chat/completions", chat(False), key="k-123")

    assert model_server.wait_for_requests(1, timeout=1)
    [request] = model_server.requests
    assert request == chat(False)
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer k-123"


def test_faults_are_used_once_each_in_order(model_server: ScriptedModelServer) -> None:
    model_server.fail_next(Fault.SERVER_ERROR, status=503)
    model_server.fail_next(Fault.RATE_LIMIT, retry_after=2)
    url = model_server.base_url + "/chat/completions"

    statuses = [post(url, chat(False))[0] for _ in range(3)]

    assert statuses == [503, 429, 200]


def test_requires_key_everywhere() -> None:
    with ScriptedModelServer(requires_key="right") as server:
        url = server.base_url + "/chat/completions"
        assert post(url, chat(False), key="wrong")[0] == 401
        assert post(url, chat(False), key="right")[0] == 200
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(server.base_url + "/models", timeout=5)
        caught.value.close()
        assert caught.value.code == 401


def test_stop_is_fast_even_with_a_stalled_stream() -> None:
    server = ScriptedModelServer().start()
    server.fail_next(Fault.STALL, after=1, seconds=60)
    server.script("a long reply that stalls")
    outcome: list[str] = []

    def read_stalled_stream() -> None:
        try:
            post(server.base_url + "/chat/completions", chat(True))
            outcome.append("completed")
        except (http.client.IncompleteRead, ConnectionError):
            # Cut mid-body, or (when the stop comes before the first chunk is out, as on a
            # loaded machine) before the response began.
            outcome.append("cut off")

    client = threading.Thread(target=read_stalled_stream, daemon=True)
    client.start()
    assert server.wait_for_requests(1, timeout=5)

    server.stop()
    client.join(timeout=30)  # only guards against a hang: the stop cuts the stream at once

    assert not client.is_alive()
    assert outcome == ["cut off"]


def test_simple_token_count() -> None:
    assert simple_token_count("Hello, world! It's 4pm.") == 9


def test_cli_serves_until_interrupted() -> None:
    command = [sys.executable, "-m", "ctxchat.testing.server", "--port", "0", "--reply", "Hi!"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            banner = process.stdout.readline()
            base_url = banner.split(" at ", 1)[1].split(" ", 1)[0]
            _, raw = post(base_url + "/chat/completions", chat(False))
            assert json.loads(raw)["choices"][0]["message"]["content"] == "Hi!"
        finally:
            process.send_signal(signal.SIGINT)
            code = process.wait(timeout=10)

    assert banner.startswith("Serving an OpenAI-compatible test server at http://127.0.0.1:")
    assert code == 0
