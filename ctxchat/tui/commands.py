"""Command palette entries, named by area: "memory: …", "context: …", "mode: …" (the
palette's entries of the action table, `tui/actions.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from ctxchat.core.memory import Mode
from ctxchat.tui.action import Action
from ctxchat.tui.actions import keys_in, palette_actions, remapped_away

if TYPE_CHECKING:
    from ctxchat.tui.conversation_screen import ConversationScreen

WHERE_KEYS_WORK = {
    "Composer": "in the message box",
    "ConversationView": "on a selected message",
    "MemoryPanel": "in the memory panel",
    "LayerPanel": "on the system layer",
}
"""Where a key of a palette command works, when not everywhere on the screen."""


def with_key(screen: ConversationScreen, action: Action, words: str) -> str:
    """`words` with the key that runs `action` without the palette, and where it works (a
    key the footer has no room for is found here); as it is when no key runs it."""
    keymap = screen.workspace.settings.keymap
    if not action.keys or remapped_away(keymap, action.id):
        return words
    where = WHERE_KEYS_WORK.get(action.where)
    key = " or ".join(keys_in(keymap, action.id))
    return f"{words} · {key} {where}" if where else f"{words} · {key}"


def ctxchat_commands(screen: ConversationScreen) -> Iterator[SystemCommand]:
    """The app's own palette commands, each run by the conversation screen (routed to the
    part or widget that runs it: `Action.target`)."""

    def run(action: str) -> Callable[[], Any]:
        return lambda: screen.run_action(action)

    for action in palette_actions():
        run_it = run(action.screen_action)
        if action.id == "recall.across":
            if screen.has_session:  # named for the choice it switches to
                following = screen.session.recaller.across.following()
                yield SystemCommand(
                    action.palette.format(next=following.value),
                    f"From now on in this run, {following.describe()}",
                    run_it,
                )
        elif action.id != "mode.toggle":
            words = with_key(screen, action, action.palette_help or action.help)
            yield SystemCommand(action.palette, words, run_it)
        elif screen.has_session:  # named for the mode it switches to
            other = screen.session.mode.toggled()
            words = (
                "Objective sends only facts and constraints"
                if other is Mode.OBJECTIVE
                else "Personalization also sends preferences and hypotheses, labelled"
            )
            yield SystemCommand(
                action.palette.format(other=other.value), with_key(screen, action, words), run_it
            )
