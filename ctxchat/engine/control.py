"""Starting, finding and stopping the engine: one per engine directory (one per user), shared
by the app and every command; started when first needed, by one process at a time."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ctxchat.engine.errors import EngineError, EngineLoadCancelled
from ctxchat.engine.files import (
    BUNDLED,
    INSTALL_HINT,
    check_fits,
    check_gguf,
    engine_installed,
    free_memory,
    model_name,
    model_path,
    window_to_serve,
)
from ctxchat.engine.state import (
    FAILURE_FILE,
    LOG_FILE,
    EngineState,
    alive,
    clear_state,
    engine_dir,
    mark_used,
    read_state,
    start_lock,
)

IDLE_SECONDS = 600.0
"""How long the engine waits for a ctxchat to use it again before it stops."""
IDLE_ENV = "CTXCHAT_ENGINE_IDLE"
"""Overrides IDLE_SECONDS (tests use a few seconds)."""
START_PATIENCE = 180.0
"""The longest a model may take to load (a large one on a slow disk): a guard, no more."""
STOP_PATIENCE = 10.0
_children: list[subprocess.Popen[bytes]] = []
"""Engines this process started (kept, so none is reported as left running unwaited)."""


@dataclass(frozen=True, slots=True)
class EngineOptions:
    """What a profile asks of the engine."""

    model: str = BUNDLED
    """"smollm2" or a .gguf file's path."""
    port: int = 0
    """0: any free loopback port (the last one when free)."""
    n_ctx: int = 0
    """The window to serve; 0: the model's own, at most LARGEST_DEFAULT_WINDOW."""

    @property
    def name(self) -> str:
        return model_name(self.model)


def idle_seconds(env: dict[str, str] | None = None) -> float:
    value = (os.environ if env is None else env).get(IDLE_ENV, "")
    try:
        return float(value) if value.strip() else IDLE_SECONDS
    except ValueError:
        return IDLE_SECONDS


def running_engine(directory: Path) -> EngineState | None:
    """The engine the directory names, if its process runs."""
    state = read_state(directory)
    return state if state is not None and alive(state.pid) else None


def ensure_engine(
    directory: Path,
    options: EngineOptions,
    *,
    env: dict[str, str] | None = None,
    cancelled: threading.Event | None = None,
) -> EngineState:
    """The running engine serving `options.model`: found, or started (another model's is
    stopped first). Two processes asking at once start one. Raises EngineError (one line);
    EngineLoadCancelled once `cancelled` is set while the model loads (that engine is
    stopped)."""
    path = model_path(options.model)
    engine_dir(directory)
    mark_used(directory)
    found = _serving(directory, path)
    if found is not None:
        return found
    with start_lock(directory, START_PATIENCE + STOP_PATIENCE, cancelled):
        found = _serving(directory, path)
        if found is not None:
            return found
        other = running_engine(directory)
        if other is not None:
            _stop(directory, other)
        return _start(directory, path, options, idle_seconds(env), cancelled)


def _serving(directory: Path, path: Path) -> EngineState | None:
    state = running_engine(directory)
    if state is not None and Path(state.model_path) == path:
        return state
    return None


def _start(
    directory: Path,
    path: Path,
    options: EngineOptions,
    idle: float,
    cancelled: threading.Event | None = None,
) -> EngineState:
    if not engine_installed():
        raise EngineError(f"The engine (xllamacpp) is not installed: {INSTALL_HINT}.")
    model = check_gguf(path)
    free = free_memory()
    check_fits(model, free)
    with contextlib.suppress(FileNotFoundError):
        (directory / FAILURE_FILE).unlink()
    command = [sys.executable, "-m", "ctxchat.engine", "serve", str(directory), str(path)]
    n_ctx, note = window_to_serve(model, options.name, options.n_ctx, free)
    command += [options.name, str(options.port), str(n_ctx), str(idle), note]
    log_fd = os.open(directory / LOG_FILE, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    with os.fdopen(log_fd, "wb") as log:
        # Its own session: the terminal's hangup or Ctrl+C never reaches it, and its log
        # (llama.cpp writes a lot) never reaches the user's terminal.
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )
    _children.append(child)
    deadline = time.monotonic() + START_PATIENCE
    while True:
        state = read_state(directory)
        if state is not None and state.pid == child.pid:
            return state
        if child.poll() is not None:
            raise EngineError(_why_not_started(directory, path))
        if cancelled is not None and cancelled.is_set():
            child.kill()
            child.wait()
            clear_state(directory, child.pid)
            raise EngineLoadCancelled(f"Loading {path.name} was cancelled; the engine stopped.")
        if time.monotonic() > deadline:
            child.kill()
            raise EngineError(
                f"The engine did not load {path.name} within {START_PATIENCE:.0f} s: see "
                f"{directory / LOG_FILE}."
            )
        time.sleep(0.05)


def _why_not_started(directory: Path, path: Path) -> str:
    try:
        return (directory / FAILURE_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return f"The engine stopped while loading {path.name}: see {directory / LOG_FILE}."


def stop_engine(directory: Path) -> EngineState | None:
    """Stop the engine the directory names (None: none was running)."""
    if not directory.is_dir():
        return None
    with start_lock(directory, START_PATIENCE + STOP_PATIENCE):
        state = running_engine(directory)
        if state is None:
            return None
        _stop(directory, state)
        return state


def _stop(directory: Path, state: EngineState) -> None:
    clear_state(directory, state.pid)  # it stops by itself within a tick anyway
    with contextlib.suppress(ProcessLookupError):
        os.kill(state.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_PATIENCE
    while alive(state.pid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(state.pid, signal.SIGKILL)
            break
        time.sleep(0.05)


LOADING_STEPS = (
    ("load_model: loading model", "reading the model file"),
    ("load_model: initializing", "making room for the window"),
    ("init: model loaded", "starting to serve"),
)
"""What the engine's log says as it loads a model (llama.cpp's server), in words."""


def loading_step(directory: Path) -> str:
    """How far the engine loading a model got, from its log: "step 2 of 4: …"."""
    try:
        log = (directory / LOG_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        log = ""
    reached = 0
    for number, (line, _) in enumerate(LOADING_STEPS, start=1):
        if line in log:
            reached = number
    total = len(LOADING_STEPS) + 1
    if reached == 0:
        return f"step 1 of {total}: starting the engine"
    return f"step {reached + 1} of {total}: {LOADING_STEPS[reached - 1][1]}"
