"""The real app on a pseudo-terminal: a preset chosen from the command palette is what the
next request sends."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from ctxchat.testing.server import ScriptedModelServer

from ..waiting import until_true
from .pty_process import PtyProcess

CTRL_P = b"\x10"
UP = b"\x1b[A"
STYLE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def drawn_since(mark: int, text: bytes) -> Callable[[bytes], bool]:
    """Whether `text` was drawn after `mark`, whatever styles or moves split it."""
    return lambda output: text in STYLE.sub(b"", output[mark:])


def press(tui: PtyProcess, keys: bytes, shown: bytes = b"") -> None:
    """Type `keys`, then read until `shown` (its letters in a row) has been drawn since."""
    mark = len(tui.output)
    tui.write(keys)
    tui.read_until(drawn_since(mark, shown))


PRESET = '\n[presets.precise]\nsystem_prompt = "Answer in one line."\ntemperature = 0.2\n'


def test_a_preset_chosen_from_the_palette_is_sent_with_the_next_message(
    home: Path, server: ScriptedModelServer
) -> None:
    config = Path(os.environ["CTXCHAT_CONFIG"])
    config.write_text(config.read_text() + PRESET)
    server.script("One line.")
    with PtyProcess([], columns=120, rows=30) as tui:
        tui.read_until(lambda output: b"gpt-4o" in output)
        press(tui, CTRL_P, b"Search for commands")
        press(tui, b"preset: choose", b"Choose this conversation's preset")
        press(tui, b"\r", b"Preset for this conversation")
        # "no preset" is highlighted (the one in force); the preset is above it. Up and
        # Enter in one burst: Enter chooses where Up moved to.
        press(tui, UP + b"\r", b"preset precise")
        tui.write(b"Weather?\r")
        until_true(lambda: bool(server.requests), what="the request")
        assert tui.quit() == 0, tui.tail()
    body = server.requests[-1]
    assert body["messages"][0] == {"role": "system", "content": "Answer in one line."}
    assert body["messages"][-1] == {"role": "user", "content": "Weather?"}
    assert body["temperature"] == 0.2
    assert b"Traceback" not in tui.output
