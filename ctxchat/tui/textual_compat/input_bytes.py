"""Bytes typed or pasted into the terminal that are not UTF-8 arrive as U+FFFD, not as a crash.

Textual 8.2.8's Linux driver decodes what the terminal sends with a strict UTF-8 decoder in
its input thread: one byte that is not UTF-8 (a paste from a Latin-1 file, a terminal set
to another encoding) raised there, printed a traceback and ended the app, the draft lost.
The decoder used here replaces such bytes instead. The composer then shows U+FFFD where they
were, so what is sent is what the user sees, and can still edit.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from functools import partial

from textual.drivers import linux_driver

__all__ = ["replace_undecodable_input"]


def _replacing(encoding: str) -> Callable[[], codecs.IncrementalDecoder]:
    return partial(codecs.getincrementaldecoder(encoding), errors="replace")


def replace_undecodable_input() -> None:
    """Have the terminal driver decode input with errors="replace" (before the app runs)."""
    linux_driver.getincrementaldecoder = _replacing  # type: ignore[attr-defined,assignment]
