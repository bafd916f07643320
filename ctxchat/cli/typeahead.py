"""Keys typed while the TUI starts stay as typed: Enter is Enter, and nothing is echoed."""

from __future__ import annotations

import sys
import termios
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TextIO


@contextmanager
def typed_keys_kept(stream: TextIO | None = None) -> Iterator[None]:
    """Until the app takes the keyboard, have the terminal keep Enter as Enter and not echo.

    A terminal left as the shell set it turns an Enter typed while the app starts (type-ahead
    over SSH, a user who types at once) into a line feed, which the composer reads as
    Ctrl+J, a new line: the message was not sent and ran into the next one. It also echoed
    the keys over the shell before the first frame. The terminal's settings are restored on
    the way out, whatever the app left.
    """
    stream = sys.stdin if stream is None else stream
    try:
        descriptor = stream.fileno()
        before = termios.tcgetattr(descriptor)
    except (OSError, ValueError, termios.error):  # not a terminal: nothing to keep
        yield
        return
    starting = list(before)
    starting[0] = before[0] & ~termios.ICRNL
    starting[3] = before[3] & ~termios.ECHO
    try:
        termios.tcsetattr(descriptor, termios.TCSANOW, starting)
    except termios.error:
        yield
        return
    try:
        yield
    finally:
        with suppress(termios.error):
            termios.tcsetattr(descriptor, termios.TCSADRAIN, before)
