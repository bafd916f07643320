"""Find in the conversation (ctrl+f): count the messages holding the words, step through them."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches

from ctxchat.tui.base import ConversationBase
from ctxchat.tui.on_screen import FindPlace
from ctxchat.tui.reveal import reveal_message
from ctxchat.tui.snippet import first_hit
from ctxchat.tui.widgets.find_bar import FindBar


class FindActions(ConversationBase):
    """The find bar: mounted over the conversation the first time it is asked for."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+f",
            "find",
            "Find",
            show=False,
            id="conversation.find",
            tooltip="Find words in this conversation: enter/F3 next, shift+enter/shift+F3 "
            "previous, Esc closes",
        ),
    ]

    @property
    def find_bar(self) -> FindBar | None:
        """The find bar, once it has been opened."""
        try:
            return self.query_one("#find-bar", FindBar)
        except NoMatches:
            return None

    async def action_find(self) -> None:
        if not self.has_session:
            return
        bar = self.find_bar
        if bar is None:
            bar = FindBar(id="find-bar")
            await self.query_one("#chat").mount(bar, before=self.conversation_view)
        bar.open()
        self._count(bar, bar.query_text)

    def _hits(self, query: str) -> list[int]:
        """The open conversation's messages holding the words, newest first."""
        conversation = self.session.conversation_id
        if conversation is None:
            return []
        return self.session.store.find_in_conversation(conversation, query)[::-1]

    def _count(self, bar: FindBar, query: str) -> None:
        self.on_screen.find_place = None
        bar.show_count(None, len(self._hits(query)))

    async def conversation_shown(self) -> None:
        # The bar, open over another conversation, counts the hits of this one.
        await super().conversation_shown()
        bar = self.find_bar
        if bar is not None and bar.is_open:
            self._count(bar, bar.query_text)

    @on(FindBar.QueryChanged)
    def _query_changed(self, event: FindBar.QueryChanged) -> None:
        bar = self.find_bar
        if bar is not None:
            self._count(bar, event.query)

    @on(FindBar.StepRequested)
    async def _step(self, event: FindBar.StepRequested) -> None:
        bar = self.find_bar
        conversation = self.session.conversation_id
        if bar is None or conversation is None:
            return
        # Read again on every step: messages may have come or gone since the last one.
        hits = self._hits(event.query)
        if not hits:
            self.on_screen.find_place = None
            bar.show_count(None, 0)
            return
        place = self.on_screen.find_place
        if place is not None and place.query == event.query and place.message_id in hits:
            index = (hits.index(place.message_id) + event.step) % len(hits)
        else:  # the first step, or the hit shown is gone: from the newest (or the oldest)
            index = 0 if event.step > 0 else len(hits) - 1
        message_id = hits[index]
        self.on_screen.find_place = FindPlace(event.query, message_id)
        bar.show_count(index + 1, len(hits))
        if await reveal_message(self.session, self.conversation_view, message_id):
            self.call_after_refresh(self._highlight_hit, message_id, event.query)

    def _highlight_hit(self, message_id: int, query: str, tries: int = 5) -> None:
        """Select the first word found in the message (a reply's Markdown may take a few
        frames to lay out its blocks after it is mounted)."""
        item = self.conversation_view.item(message_id)
        if item is None:
            return
        found = first_hit(item.query_one(".message--body"), query)
        if found is not None:
            self.selections = {found[0]: found[1]}
        elif tries > 0:
            self.call_after_refresh(self._highlight_hit, message_id, query, tries - 1)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        if self.has_session:
            self.on_screen.find_place = None
        self.selections = {}
        self.composer.focus()
