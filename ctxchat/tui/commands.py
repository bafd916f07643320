"""Command palette entries, named by area: "memory: …", "context: …", "mode: …" (the
palette's entries of the action table, `tui/actions.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from ctxchat.core.memory import Mode
from ctxchat.tui.actions import palette_actions

if TYPE_CHECKING:
    from ctxchat.tui.conversation_screen import ConversationScreen


def ctxchat_commands(screen: ConversationScreen) -> Iterator[SystemCommand]:
    """The app's own palette commands, each an action of the conversation screen."""

    def run(action: str) -> Callable[[], Any]:
        return lambda: screen.run_action(action)

    for action in palette_actions():
        run_it = run(action.palette_action or action.action)
        if action.id != "mode.toggle":
            yield SystemCommand(action.palette, action.palette_help or action.help, run_it)
        elif screen.has_session:  # named for the mode it switches to
            other = screen.session.mode.toggled()
            yield SystemCommand(
                action.palette.format(other=other.value),
                "Objective sends only facts and constraints"
                if other is Mode.OBJECTIVE
                else "Personalization also sends preferences and hypotheses, labelled",
                run_it,
            )
