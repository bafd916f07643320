"""Writing the draft in the user's own editor (`$VISUAL`, else `$EDITOR`), the app suspended."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
import tempfile
import termios
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from textual.app import App, SuspendNotSupported


@dataclass(frozen=True, slots=True)
class Edited:
    """The text the editor left (None if it failed) and, when it failed, one line saying why."""

    text: str | None
    problem: str = ""


def editor_command(env: Mapping[str, str]) -> list[str] | None:
    """The editor as the user set it, split as a shell would (`code --wait`); None if unset
    or unreadable."""
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                return shlex.split(value) or None
            except ValueError:
                return None
    return None


async def edit_draft(app: App[object], draft: str, env: Mapping[str, str] | None = None) -> Edited:
    """Open `draft` in the user's editor and return what it holds when the editor exits.

    In a terminal the app hands it over (`App.suspend`) and waits for the editor, which owns
    the screen and the keys meanwhile; without one to hand over (a headless run) the editor
    runs as a process beside the app.
    """
    env = os.environ if env is None else env
    command = editor_command(env)
    if command is None:
        return Edited(None, "Set $VISUAL or $EDITOR to write the draft in your editor.")
    with tempfile.TemporaryDirectory(prefix="ctxchat-") as folder:
        path = Path(folder) / "draft.md"
        path.write_text(draft, encoding="utf-8")
        argv = [*command, str(path)]
        try:
            ended = _run_suspended(app, argv)
        except SuspendNotSupported:
            ended = await _run_beside(argv)
        if isinstance(ended, OSError):
            why = "was not found" if isinstance(ended, FileNotFoundError) else "could not start"
            return Edited(None, f"The editor {command[0]} {why}; the draft is as it was.")
        if ended != 0:
            return Edited(
                None, f"The editor {command[0]} exited with status {ended}; the draft is as it was."
            )
        # An editor ends the file with a new line; the draft ends where its text does.
        return Edited(path.read_text(encoding="utf-8", errors="replace").rstrip("\n"))


def _run_suspended(app: App[object], argv: Sequence[str]) -> int | OSError:
    """Run the editor on the terminal the app gives up until it exits. Its failure to start
    is returned, not raised: raised inside `suspend`, it would leave the app suspended."""
    with app.suspend(), keys_echoed():
        try:
            return subprocess.run(argv, check=False).returncode
        except OSError as error:
            return error


@contextmanager
def keys_echoed() -> Iterator[None]:
    """The terminal with Enter read as Enter and keys echoed, as a shell leaves it, while
    the editor runs; as it was after.

    The app found the terminal with both off (`ctxchat/cli/typeahead.py` turns them off
    while it starts, so keys typed then stay as typed), and its suspend gives the terminal
    back as it found it: a line editor would then wait for a new line that never comes.
    """
    try:
        descriptor = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
        before = termios.tcgetattr(descriptor)
    except (OSError, ValueError, termios.error):  # not a terminal: nothing to set
        yield
        return
    echoed = list(before)
    echoed[0] = before[0] | termios.ICRNL
    echoed[3] = before[3] | termios.ECHO
    with suppress(termios.error):
        termios.tcsetattr(descriptor, termios.TCSANOW, echoed)
    try:
        yield
    finally:
        with suppress(termios.error):
            termios.tcsetattr(descriptor, termios.TCSADRAIN, before)


async def _run_beside(argv: Sequence[str]) -> int | OSError:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError as error:
        return error
    return await process.wait()
