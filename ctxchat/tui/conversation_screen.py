"""The conversation screen: the conversation beside exactly what the model will see."""

from __future__ import annotations

import asyncio

from ctxchat.chat.session import ChatSession
from ctxchat.chat.workspace import Workspace
from ctxchat.tui.ask_again_actions import AskAgainActions
from ctxchat.tui.base import NARROW
from ctxchat.tui.chat_actions import ChatActions
from ctxchat.tui.conversation_actions import ConversationActions
from ctxchat.tui.find_actions import FindActions
from ctxchat.tui.memory_actions import MemoryActions
from ctxchat.tui.summary_actions import SummaryActions


class ConversationScreen(
    ChatActions, MemoryActions, SummaryActions, FindActions, ConversationActions, AskAgainActions
):
    """The app's main screen, for its whole run: the conversation on the left, its context
    on the right. It owns the conversation on screen (`OnScreen`); its widgets talk to it."""

    def __init__(
        self, workspace: Workspace, session: ChatSession | None, *, offline: bool = False
    ) -> None:
        super().__init__(workspace, session, offline=offline)
        self.mounted = asyncio.Event()
        """Set once the screen's widgets are mounted, its composer focused."""

    async def on_mount(self) -> None:
        # Keys typed before the conversation is drawn land in the composer: focused now, not
        # through the app's queue, which holds those keys until this screen is mounted.
        self.set_focus(self.composer)
        self.mounted.set()
        if self.app.size.width < NARROW:
            self.query_one("#side").add_class("-hidden")
        if self.has_session:  # else the app's first-run setup opens one (`show_session`)
            await self.start()  # before the first frame: it shows the conversation and plan
        # The first frame is this screen's, drawn once its widgets are: work that can wait
        # (loading the tokenizer and the client, asking the server) starts only then.
        self.call_after_refresh(self.first_frame_drawn)

    async def start(self) -> None:
        """Draw the open session's conversation, then ask the server what it is."""
        await self.show_conversation()
        self.composer.focus()
        if self.session.backend is not None and not self.offline:
            self.after_first_frame(self.detect_window)

    # Palette actions that need a selection or an argument.

    def action_pin_message(self) -> None:
        self.conversation_view.action_pin()

    def action_regenerate(self) -> None:
        self.conversation_view.action_regenerate()

    def action_export(self, export_format: str) -> None:
        if self.has_session and self.session.conversation_id is not None:
            if export_format == "json":
                self.ask_export(self.session.conversation, "json")
            else:
                self.ask_export(self.session.conversation, "markdown")

    async def on_unmount(self) -> None:
        if self.has_session:
            await self.session.aclose()
