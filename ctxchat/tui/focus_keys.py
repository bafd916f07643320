"""Keys acted on in the app's own queue, before the keys typed after them are delivered: Tab
and Shift+Tab move focus (on every screen); Ctrl+L opens the switcher's search box."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual import events
from textual.actions import parse
from textual.screen import Screen

from ctxchat.tui.actions import BY_ID, keys_in

OPEN_AT_ONCE = ("conversation.switch",)
"""The conversation screen's keys whose action opens a search box: the keys typed right
after them search; they are never sent as a message."""


async def opened_at_once(
    screen: Screen[Any], keymap: Mapping[str, str], event: events.Event
) -> bool:
    """Run the action of a key of `OPEN_AT_ONCE` typed on `screen` (the conversation screen,
    `keymap` the user's remaps) at once; True if it ran."""
    if not isinstance(event, events.Key):
        return False
    for binding_id in OPEN_AT_ONCE:
        if event.key in keys_in(keymap, binding_id):
            action = BY_ID[binding_id].screen_action
            _, name, parameters = parse(action)
            if not screen.check_action(name, parameters):
                return False
            await screen.run_action(action)
            return True
    return False


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
