"""Where copied text goes: tmux's buffer, or the desktop's clipboard tool, and what to say."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxchat.core.counts import counted

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.widget import Widget

TIMEOUT = 5.0
"""Seconds a clipboard tool may take before it is given up as failed."""

OSC52 = "the terminal (OSC 52)"


@dataclass(frozen=True, slots=True)
class Route:
    """A program that takes the text on its standard input (`argv`), and where it puts it."""

    argv: tuple[str, ...]
    place: str
    """Where the text goes, as the note says it ("tmux's buffer")."""

    @property
    def name(self) -> str:
        return " ".join(self.argv[:2]) if self.argv[0] == "tmux" else self.argv[0]


TMUX = Route(("tmux", "load-buffer", "-w", "-"), "tmux's buffer")
DESKTOP = (
    (Route(("wl-copy",), "the clipboard (wl-copy)"), "WAYLAND_DISPLAY"),
    (Route(("xclip", "-selection", "clipboard"), "the clipboard (xclip)"), "DISPLAY"),
    (Route(("pbcopy",), "the clipboard (pbcopy)"), None),
)
"""The desktop's tools, in the order they are tried, each with the variable that says its
display server runs (pbcopy needs none)."""


def route_for(env: Mapping[str, str]) -> Route | None:
    """The program to copy with: tmux's own buffer inside tmux (its default `set-clipboard
    external` drops the terminal's copy), else the first desktop tool found on PATH whose
    display server runs; None when there is none."""
    path = env.get("PATH", os.defpath)
    if env.get("TMUX") and shutil.which("tmux", path=path):
        return TMUX
    for route, display in DESKTOP:
        if (display is None or env.get(display)) and shutil.which(route.argv[0], path=path):
            return route
    return None


@dataclass(frozen=True, slots=True)
class Copied:
    """How a copy went: the route tried (None: there was none) and its failure, if any."""

    lines: int
    route: Route | None
    failure: str | None = None

    @property
    def note(self) -> str:
        """One line for the user: where the text went, never more than happened."""
        what = counted(self.lines, "line")
        maybe = f"sent {what} to {OSC52}; it may not reach the clipboard"
        if self.route is None:
            return f"{maybe[0].upper()}{maybe[1:]}."
        if self.failure is not None:
            return f"{self.route.name} failed ({self.failure}): {maybe}."
        return f"Copied {what} to {self.route.place} and {OSC52}."


def line_count(text: str) -> int:
    """The lines of `text` as a user counts them (a final new line starts none)."""
    return len(text.rstrip("\n").split("\n"))


async def copy_text(text: str, env: Mapping[str, str] | None = None) -> Copied:
    """Give `text` to the clipboard tool `env` (the process's by default) calls for, in a
    process of its own, waiting for it at most `TIMEOUT` seconds. The terminal's own copy
    (OSC 52) is the caller's: it writes to the screen."""
    route = route_for(os.environ if env is None else env)
    lines = line_count(text)
    if route is None:
        return Copied(lines, None)
    return Copied(lines, route, await _run(route, text))


async def _run(route: Route, text: str) -> str | None:
    """Run `route` with `text` on its input: None when it took it, else why not."""
    # Its errors go to a file, not a pipe: xclip and wl-copy leave a process behind that keeps
    # serving the clipboard, and holds open what it was given (reading a pipe to its end
    # would wait for that process to end).
    with tempfile.TemporaryFile() as errors:
        try:
            process = await asyncio.create_subprocess_exec(
                *route.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=errors,
            )
        except OSError as error:
            return error.strerror or str(error)
        try:
            assert process.stdin is not None
            process.stdin.write(text.encode())
            await asyncio.wait_for(_close_and_wait(process), TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()
            return f"no answer in {TIMEOUT:g} s"
        except (BrokenPipeError, ConnectionResetError):
            await process.wait()  # it stopped reading: its exit status says why
        if process.returncode == 0:
            return None
        errors.seek(0)
        said = errors.read().decode(errors="replace").strip().splitlines()
        status = f"exit status {process.returncode}"
        return f"{status}: {said[0].strip()}" if said else status


async def _close_and_wait(process: asyncio.subprocess.Process) -> None:
    assert process.stdin is not None
    await process.stdin.drain()
    process.stdin.close()
    await process.wait()


async def copy_and_say(widget: Widget, text: str) -> Copied:
    """Copy `text` every way there is (the terminal's OSC 52, and the route `copy_text`
    takes) and say in one line, as `widget`'s notification, where it went."""
    widget.app.copy_to_clipboard(text)
    copied = await copy_text(text)
    severity: SeverityLevel = "information" if copied.failure is None else "warning"
    widget.notify(copied.note, severity=severity, markup=False)
    return copied
