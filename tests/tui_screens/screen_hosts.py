"""Small host apps for the conversation widgets and screens, and the sample data they show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import App, ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer

from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryKind
from ctxchat.core.summary import SummaryStrategy
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.views import (
    ConversationRowView,
    MessageView,
    ProposalView,
    ServerView,
    SummaryVersionView,
)
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.message_item import MessageItem

# 2025-01-06 09:30 UTC, and earlier moments from it.
NOW = 1736155800.0
HOUR = 3600.0


def numbered(total: int) -> tuple[list[tuple[int, int]], Any]:
    """A loader over `total` alternating user/assistant messages, and the list of its calls."""
    calls: list[tuple[int, int]] = []

    def load(offset: int, limit: int) -> list[MessageView]:
        calls.append((offset, limit))
        return [
            MessageView(
                index + 1,
                "user" if index % 2 == 0 else "assistant",
                f"Message {index + 1}: what the model was told.",
                tokens=12,
            )
            for index in range(offset, min(total, offset + limit))
        ]

    return calls, load


def listed(views: Sequence[MessageView]) -> Any:
    def load(offset: int, limit: int) -> list[MessageView]:
        return list(views[offset : offset + limit])

    return load


SAMPLE = [
    MessageView(1, "user", "How do I read a TOML file in Python 3.11?", tokens=18),
    MessageView(
        2,
        "assistant",
        "Use the standard library's `tomllib`:\n\n"
        "```python\nimport tomllib\n\nwith open('config.toml', 'rb') as f:\n"
        "    config = tomllib.load(f)\n```\n\nIt only reads; write with **tomli-w**.",
        model="gpt-4o-mini",
        tokens=61,
        reasoning="The user is on 3.11, so tomllib is available; mention tomli-w for writing.",
    ),
    MessageView(3, "user", "And the [bold]literal[/bold] text [/INST] stays as typed?", tokens=20),
    MessageView(
        4,
        "assistant",
        "Yes: text is never read as markup, so [@click=app.quit]this[/] is",
        status=MessageStatus.INTERRUPTED,
        error="The connection closed before the reply was complete.",
        model="gpt-4o-mini",
        tokens=19,
    ),
    MessageView(5, "user", "Try once more, please.", tokens=11),
    MessageView(
        6,
        "assistant",
        "",
        status=MessageStatus.FAILED,
        error="The server at 127.0.0.1:11434 refused the connection.",
        model="gpt-4o-mini",
    ),
]

ROWS = [
    ConversationRowView(1, "TOML config loading", NOW - 1 * HOUR, 24, 3_412),
    ConversationRowView(2, "Trip to Lisbon: packing list", NOW - 26 * HOUR, 8, 950),
    ConversationRowView(3, "Refactor the [bold]store[/bold] module", NOW - 50 * HOUR, 132, 48_210),
    ConversationRowView(4, "Config precedence rules", NOW - 200 * HOUR, 56, 12_004),
]

VERSIONS = [
    SummaryVersionView(
        11,
        1,
        "The user asked how to read TOML in Python 3.11; tomllib was suggested.",
        1,
        12,
        SummaryStrategy.SUMMARIZE,
        "gpt-4o-mini",
        24,
        False,
        NOW - 5 * HOUR,
        False,
    ),
    SummaryVersionView(
        12,
        2,
        "decision: read config with tomllib\nconstraint: Python 3.11 only\n"
        "action: write files with tomli-w\nopen: how to keep comments when writing",
        1,
        30,
        SummaryStrategy.KEYVALUE,
        "gpt-4o-mini",
        41,
        False,
        NOW - 3 * HOUR,
        False,
    ),
    SummaryVersionView(
        13,
        3,
        "decision: read config with tomllib\nconstraint: Python 3.11 only\n"
        "action: write files with tomli-w; never rewrite the user's own config\n"
        "open: none",
        1,
        42,
        SummaryStrategy.KEYVALUE,
        "",
        44,
        True,
        NOW - 1 * HOUR,
        True,
    ),
]

PROPOSALS = [
    ProposalView(
        0,
        MemoryKind.FACT,
        "The project targets Python 3.11.",
        8,
        1,
        4,
        "The project uses Python 3.10.",
    ),
    ProposalView(1, MemoryKind.CONSTRAINT, "Never rewrite a config the user edited by hand.", 9, 7),
    ProposalView(2, MemoryKind.PREFERENCE, "The user prefers short answers.", 4, 5),
    ProposalView(3, MemoryKind.HYPOTHESIS, "The slow start comes from the token counter.", 3, None),
]
PROBLEMS = ["Entry 5 has no text; skipped.", "Entry 6 has kind 'belief?'; taken as a hypothesis."]

SERVERS = [
    ServerView("ollama", "http://127.0.0.1:11434/v1", ("llama3.2:3b", "qwen2.5:7b", "gemma3:270m")),
]


class ConversationHost(App[None]):
    """A conversation pane with a footer; records what it posts and confirms links like the app."""

    def __init__(self, total: int, loader: Any) -> None:
        super().__init__()
        self.total = total
        self.loader = loader
        self.posted: list[Message] = []
        self.opened: list[str] = []

    def compose(self) -> ComposeResult:
        yield ConversationView(self.total, self.loader)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(ConversationView).focus()

    def on_conversation_view_copy_requested(self, event: ConversationView.CopyRequested) -> None:
        self.posted.append(event)

    def on_conversation_view_pin_requested(self, event: ConversationView.PinRequested) -> None:
        self.posted.append(event)

    def on_conversation_view_edit_requested(self, event: ConversationView.EditRequested) -> None:
        self.posted.append(event)

    def on_conversation_view_left(self, event: ConversationView.Left) -> None:
        self.posted.append(event)

    def on_conversation_view_regenerate_requested(
        self, event: ConversationView.RegenerateRequested
    ) -> None:
        self.posted.append(event)

    def on_message_item_link_clicked(self, event: MessageItem.LinkClicked) -> None:
        self.posted.append(event)

        def answered(yes: bool | None) -> None:
            if yes:
                self.opened.append(event.href)

        self.push_screen(
            ConfirmScreen("Open this link in your browser?", "Open link", detail=event.href),
            answered,
        )


class ScreenHost(App[None]):
    """Pushes one screen at start and keeps what it dismissed with."""

    NO_RESULT = object()

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.screen_under_test = screen
        self.result: Any = self.NO_RESULT

    def on_mount(self) -> None:
        self.push_screen(self.screen_under_test, self._keep)

    def _keep(self, result: Any) -> None:
        self.result = result
