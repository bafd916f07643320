"""Keeping the cycle collector's full passes off the screen: what start-up built is moved out
of its sight, and full passes wait while a reply streams."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

HELD = 1 << 30
"""The oldest generation's threshold while full passes are held: never reached."""

_holders = 0
_saved: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def full_collections_held() -> Iterator[None]:
    """While inside, the cycle collector runs its young passes but no full one.

    A full pass scans every object the app holds. While a long reply streams, Markdown
    blocks are mounted faster than anything else in the app allocates, and the collector
    starts a full pass every few hundred milliseconds, each 50–100 ms with the screen
    frozen. Textual holds the whole collector off during smooth scrolling
    (`App.PAUSE_GC_ON_SCROLL`) for the same reason. Young passes still free the short-lived
    cycles; the first full pass after the reply catches up. Holds nest.
    """
    global _holders, _saved
    if _holders == 0:
        _saved = gc.get_threshold()
        young, middle, _ = _saved
        gc.set_threshold(young, middle, HELD)
    _holders += 1
    try:
        yield
    finally:
        _holders -= 1
        if _holders == 0:
            gc.set_threshold(*_saved)


def freeze_long_lived() -> None:
    """Move every object alive now out of the cycle collector's sight, until `thaw`.

    What start-up builds (modules, the model client's classes, tokenizer tables, the first
    screen) lives as long as the app, and every full pass would scan all of it again:
    40–50 ms each with the model client loaded. Called when the first frame is drawn and
    again when the model client has loaded; it frees nothing and costs nothing.
    """
    gc.freeze()


def thaw() -> None:
    """Give what `freeze_long_lived` set aside back to the collector (the app is closing:
    in a process that runs apps one after another, each one's objects are freed)."""
    gc.unfreeze()
