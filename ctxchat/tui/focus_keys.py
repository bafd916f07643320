"""Tab and Shift+Tab move focus in the app's own queue, on every screen."""

from __future__ import annotations

from textual import events
from textual.screen import Screen

FOCUS_MOVES = {"tab": "app.focus_next", "shift+tab": "app.focus_previous"}
"""Textual's screen bindings that move focus, by key."""


def move_focus_now(screen: Screen[object], event: events.Event) -> bool:
    """Move focus for a Tab (or Shift+Tab) typed on `screen` at once, before any key after
    it is delivered; True if it did.

    As a binding it runs once the key has reached the focused widget and bubbled up to the
    screen, while the keys typed after it are already on their way to that widget: a URL
    typed right after Tab landed in the field before, and an ↑ sent with Shift+Tab from an
    empty composer opened the edit of the last message instead of moving in the
    conversation.
    """
    if not isinstance(event, events.Key) or event.key not in FOCUS_MOVES:
        return False
    active = screen.active_bindings.get(event.key)
    if (
        active is None
        or active.node is not screen
        or active.binding.action != FOCUS_MOVES[event.key]
    ):
        return False  # a widget that takes Tab itself (an editor indenting)
    if event.key == "tab":
        screen.focus_next()
    else:
        screen.focus_previous()
    return True
