"""`ctxchat engine status|start|stop`: the model ctxchat runs on this machine."""

from __future__ import annotations

import argparse
import time

from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import print_json
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import say
from ctxchat.config.locations import Locations
from ctxchat.engine.control import (
    EngineOptions,
    ensure_engine,
    idle_seconds,
    running_engine,
    stop_engine,
)
from ctxchat.engine.files import BUNDLED, gigabytes
from ctxchat.engine.state import EngineState, resident_memory


def engine_command(args: argparse.Namespace, options: SessionOptions) -> int:
    directory = Locations.resolve(config=options.config, data=options.data_dir).engine_dir
    action = args.engine_command
    if action == "status":
        state = running_engine(directory)
        if args.json:
            print_json(_as_json(state))
        elif state is None:
            say("The engine is not running; it starts when a conversation needs it.")
        else:
            say(describe(state))
        return 0
    if action == "start":
        state = ensure_engine(
            directory, EngineOptions(model=args.model_file or BUNDLED, port=args.port)
        )
        print_json(_as_json(state)) if args.json else say(describe(state))
        return 0
    if action == "stop":
        stopped = stop_engine(directory)
        if stopped is None:
            raise CliError("the engine is not running", EXIT_USAGE)
        say(f"Stopped the engine (pid {stopped.pid}, {stopped.model}).")
        return 0
    raise CliError(f"unknown engine action {action!r}", EXIT_USAGE)


def describe(state: EngineState) -> str:
    """The running engine in one line: what, where, since when, its memory."""
    memory = resident_memory(state.pid)
    held = f", {gigabytes(memory)} of memory" if memory else ""
    since = time.strftime("%H:%M", time.localtime(state.started))
    minutes = idle_seconds() / 60
    return (
        f"The engine runs {state.model} at {state.base_url} (pid {state.pid}, window "
        f"{state.n_ctx:,} tokens, since {since}{held}); it stops after {minutes:g} minutes "
        "unused."
    )


def _as_json(state: EngineState | None) -> dict[str, object]:
    if state is None:
        return {"running": False}
    return {
        "running": True,
        "pid": state.pid,
        "base_url": state.base_url,
        "model": state.model,
        "model_path": state.model_path,
        "context_window": state.n_ctx,
        "started": state.started,
        "memory_bytes": resident_memory(state.pid),
    }
