"""The engine process: llama.cpp's server (xllamacpp) on a loopback port with a key of its
own, which writes where it listens for its clients and stops itself once no ctxchat has used
it for a while. Run by `control.ensure_engine` as `python -m ctxchat.engine serve ...`, its
output going to the engine's log file, never to a terminal."""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import socket
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ctxchat.engine.state import (
    FAILURE_FILE,
    EngineState,
    clear_state,
    last_port,
    last_used,
    read_state,
    write_private,
    write_state,
)

TICK = 2.0
"""Seconds between two looks at whether the engine is still wanted."""


@dataclass(frozen=True, slots=True)
class ServeOptions:
    directory: Path
    model_path: Path
    model: str
    port: int
    """0: the last engine's port if free, else any free one."""
    n_ctx: int
    """0: the model's own (what it was trained for)."""
    idle: float
    """Seconds without a client before the engine stops."""
    window_note: str = ""
    """Why the window is what it is, when that needs saying."""


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def choose_port(options: ServeOptions) -> int:
    if options.port:
        if not port_free(options.port):
            fail(
                options.directory,
                f"Port {options.port} is taken by another program: choose another engine "
                "port (0 picks a free one).",
            )
        return options.port
    last = last_port(options.directory)
    return last if last and port_free(last) else free_port()


def fail(directory: Path, reason: str) -> None:
    """Tell the starter why the engine could not start, and end."""
    print(reason, file=sys.stderr, flush=True)
    write_private(directory / FAILURE_FILE, reason)
    os._exit(1)


def ask(state: EngineState, path: str) -> object:
    request = urllib.request.Request(
        state.root + path, headers={"Authorization": f"Bearer {state.key}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def busy(state: EngineState) -> bool:
    """Whether a reply is being written (a long one keeps the engine up)."""
    try:
        slots = ask(state, "/slots")
    except (OSError, ValueError):
        return False
    return isinstance(slots, list) and any(
        isinstance(slot, dict) and slot.get("is_processing") for slot in slots
    )


def served_window(state: EngineState) -> int:
    try:
        props = ask(state, "/props")
        assert isinstance(props, dict)
        return int(props["default_generation_settings"]["n_ctx"])
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        return state.n_ctx


def serve(options: ServeOptions) -> None:
    """Load the model, listen, say so in the state file, and run until unwanted."""
    import xllamacpp

    directory = options.directory
    port = choose_port(options)
    key = secrets.token_urlsafe(32)
    params = xllamacpp.CommonParams()
    params.model.path = str(options.model_path)
    params.model_alias = {options.model}
    params.n_ctx = options.n_ctx
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.use_jinja = True
    params.api_keys = [key]  # nothing else on the machine can use it
    params.endpoint_slots = True  # for `busy`
    try:
        server = xllamacpp.Server(params)
    except RuntimeError:
        if not port_free(port):
            fail(directory, f"Port {port} was taken while the engine started: start it again.")
        fail(
            directory,
            f"llama.cpp could not load {options.model_path}: the file is damaged or not a "
            "model it reads (the engine's log says more).",
        )
    started = time.time()
    state = EngineState(os.getpid(), port, key, str(options.model_path), options.model, 0, started)
    state = dataclasses.replace(state, n_ctx=served_window(state), window_note=options.window_note)
    write_state(directory, state)
    print(f"listening on {state.root} ({server!r})", file=sys.stderr, flush=True)
    watch(options, state)


def watch(options: ServeOptions, state: EngineState) -> None:
    """Run until the state file no longer names this engine (stopped, replaced) or no client
    used it for `idle` seconds while no reply was being written; then end."""
    directory = options.directory
    busy_at = state.started
    while True:
        time.sleep(min(TICK, max(options.idle / 4, 0.1)))
        named = read_state(directory)
        if named is None or named.pid != state.pid:
            break
        now = time.time()
        if now - max(last_used(directory), busy_at) < options.idle:
            continue
        if busy(state):
            busy_at = now
            continue
        print("stopping: no ctxchat has used the engine for a while", file=sys.stderr, flush=True)
        clear_state(directory, state.pid)
        break
    os._exit(0)  # the server's threads are not waited for
