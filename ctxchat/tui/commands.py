"""Command palette entries, named by area: "memory: …", "context: …", "mode: …"."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from ctxchat.core.memory import Mode

if TYPE_CHECKING:
    from ctxchat.tui.conversation_screen import ConversationScreen


def ctxchat_commands(screen: ConversationScreen) -> Iterator[SystemCommand]:
    """The app's own palette commands, each an action of the conversation screen."""

    def run(action: str) -> Callable[[], Any]:
        return lambda: screen.run_action(action)

    entries = [
        ("memory: add entry", "Write a new memory entry", "add_memory"),
        (
            "memory: pin message",
            "Pin the selected message (or the newest) as a memory entry",
            "pin_message",
        ),
        (
            "memory: extract facts",
            "Let the model propose entries from recent turns; you decide",
            "extract",
        ),
        ("memory: focus panel", "Go to the memory panel", "focus_memory"),
        (
            "memory: restore superseded entry",
            "Make the highlighted (or the last) superseded entry current again",
            "restore_memory",
        ),
        (
            "memory: sort by use",
            "Entries no recent reply used first (an estimate), or back to stored order",
            "order_memory",
        ),
        (
            "context: summarize now",
            "Fold older turns into the summary (shows them first)",
            "summarize",
        ),
        ("context: summary versions", "Roll back, edit or rebuild the summary", "summaries"),
        ("context: inspect request", "The exact JSON the next request will send", "inspect"),
        ("context: show or hide panels", "Toggle the context side", "toggle_context"),
        ("conversation: new", "Start a new conversation", "new_conversation"),
        ("conversation: switch", "Search and switch conversations", "conversations"),
        ("conversation: rename", "Rename this conversation", "rename"),
        (
            "conversation: find",
            "Find words in this conversation and step through the messages holding them",
            "find",
        ),
        (
            "conversation: export markdown",
            "Write this conversation to a Markdown file",
            "export('markdown')",
        ),
        ("conversation: export json", "Write this conversation to a JSON file", "export('json')"),
        ("reply: stop", "Stop the reply being written", "stop"),
        ("reply: retry", "Ask again for the newest reply if it failed or stopped", "retry"),
        (
            "reply: regenerate",
            "A new answer to the last message; the reply it replaces is kept as a variant",
            "regenerate",
        ),
        (
            "reply: ask again without…",
            "Ask the selected reply (or the newest) again with a change; compare both",
            "ask_again",
        ),
        (
            "reply: variants",
            "The selected reply's (or the newest's) variants: open one, or keep it as the reply",
            "variants",
        ),
        ("model: switch", "Switch provider profile or model", "switch_model"),
    ]
    for title, help_text, action in entries:
        yield SystemCommand(title, help_text, run(action))
    session = screen.session if screen.has_session else None
    if session is not None:
        other = session.mode.toggled()
        yield SystemCommand(
            f"mode: {other.value}",
            "Objective sends only facts and constraints"
            if other is Mode.OBJECTIVE
            else "Personalization also sends preferences and hypotheses, labelled",
            run("toggle_mode"),
        )
