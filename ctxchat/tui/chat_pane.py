"""ChatPane: the conversation column: the turns, the status line, the composer, the find bar;
it runs turns and opens the dialogs about one message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import getters, on
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import var

from ctxchat.chat.answering import Resend
from ctxchat.chat.counted_first import regenerate_counted, send_counted
from ctxchat.chat.edits import branch_from, replace_from
from ctxchat.chat.session import ChatSession
from ctxchat.core.counts import counted
from ctxchat.store import NotFound
from ctxchat.tui.on_screen import OnScreen
from ctxchat.tui.parts.message_dialogs import MessageDialogs
from ctxchat.tui.parts.turn_runner import (
    SendQueue,
    TurnDrawn,
    TurnEvents,
    TurnRequest,
    TurnRunner,
    called,
)
from ctxchat.tui.reveal import reveal_message
from ctxchat.tui.snippet import first_hit
from ctxchat.tui.widgets.composer import Composer
from ctxchat.tui.widgets.conversation import RETRYABLE, ConversationView
from ctxchat.tui.widgets.find_bar import FindBar, Finder
from ctxchat.tui.widgets.queued_messages import QueuedMessages
from ctxchat.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from ctxchat.tui.widgets.message_item import MessageItem


def finder(session: ChatSession) -> Finder:
    """The messages of `session`'s conversation holding the words, newest first."""
    store, conversation = session.store, session.conversation_id

    def hits(query: str) -> list[int]:
        if conversation is None:
            return []
        return store.search.find_in_conversation(conversation, query)[::-1]

    return hits


class ChatPane(Vertical):
    """The conversation on screen (`shown`, bound to the screen's), its status line and the
    composer; a find bar over the turns once asked for. Its children's messages come here:
    it sends what the composer gives (its `TurnRunner` runs each turn), asks replies again,
    opens a message's dialogs (`MessageDialogs`) and steps through what the find bar finds.
    What goes beyond the column is asked of the screen: `Rewritten`."""

    shown: var[OnScreen | None] = var(None)
    """The conversation on screen."""

    view = getters.query_one("#conversation", ConversationView)
    status_line = getters.query_one("#status-line", StatusLine)
    composer = getters.query_one("#composer", Composer)
    turn_runner = getters.query_one(TurnRunner)
    message_dialogs = getters.query_one(MessageDialogs)
    queued = getters.query_one("#queued", QueuedMessages)

    @dataclass
    class Rewritten(Message):
        """An edit rewrote `session`'s turns from a message on (`branch_id` None), or
        began a branch with them (`branch_id`): draw it, and ask for the reply again."""

        session: ChatSession
        branch_id: int | None

    def on_mount(self) -> None:
        self.watch(self.turn_runner, "drawn", self._turn_drawn, init=False)
        self.watch(self.turn_runner, "queue", self._show_queued, init=False)
        self.watch(self.turn_runner, "database_locked", self.status_line.say_locked, init=False)

    @property
    def session(self) -> ChatSession | None:
        return None if self.shown is None else self.shown.session

    @property
    def streaming(self) -> bool:
        return self.turn_runner.streaming

    def shows(self, session: ChatSession) -> bool:
        return self.shown is not None and self.shown.shows(session)

    @property
    def find_bar(self) -> FindBar | None:
        """The find bar, once it has been opened."""
        try:
            return self.query_one("#find-bar", FindBar)
        except NoMatches:
            return None

    # --- the conversation shown ------------------------------------------------------------

    async def follow_redraw(self) -> None:
        """The conversation on screen is drawn afresh: the find bar counts its hits, and a
        reply streaming in it is caught up at once (the store's copy is a quarter second
        old), not at its next delta."""
        if self.shown is None:
            return
        session = self.shown.session
        bar = self.find_bar
        if bar is not None:
            bar.look_in(finder(session))
        if self.turn_runner.live_in(session.conversation_id) is not None:
            await self.turn_runner.live_item(self.view)

    def show_status(self) -> None:
        """Draw the conversation's own status line: who is writing, or its newest reply's
        facts (the server's notice, while it holds, is drawn over it)."""
        if self.shown is not None:
            conversation = self.shown.session.conversation_id
            writing = self.turn_runner.live_in(conversation) is not None
            self.status_line.line = self.shown.status_line(writing)

    async def show_message(self, message_id: int) -> bool:
        """Show `message_id` of the conversation on screen, mounting it (with the turns
        around it) when it is far up, and select it; False when the conversation does not
        hold it."""
        session = self.session
        return session is not None and await reveal_message(session, self.view, message_id)

    # --- turns ---------------------------------------------------------------------------

    def run_turn(self, session: ChatSession, events: TurnEvents, draft: str | None = None) -> None:
        """Run one turn in `session`; `draft` is the text taken from the composer to send
        (put back if the turn never starts)."""
        self.turn_runner.start(TurnRequest(session, events, draft), self.view)

    def again(self, why: Resend = Resend.REGENERATE) -> None:
        """Ask again for the newest reply (a new answer; the one it replaces is kept)."""
        if not self.streaming and self.session is not None:
            self.run_turn(self.session, lambda session: regenerate_counted(session, why))

    def retry(self) -> None:
        """Ask again for the newest reply if it failed or stopped."""
        session = self.session
        if session is None:
            return
        if self.streaming:
            self.notify(
                f"A reply is still being written{self._where_streaming()}; Esc stops it.",
                markup=False,
            )
            return
        conversation = session.conversation_id
        newest = (
            None if conversation is None else session.store.messages.newest_message(conversation)
        )
        if newest is None or newest.role != "assistant" or newest.status not in RETRYABLE:
            self.notify("Nothing to retry: the newest reply is complete.", markup=False)
            return
        self.turn_runner.forget_failure(conversation, newest.id)
        self.again(Resend.RETRY)

    @on(Composer.Submitted)
    def _send(self, event: Composer.Submitted) -> None:
        """Send the message, or queue it while a reply streams (its own turn, in order)."""
        session = self.session
        if session is None or session.conversation_id is None:
            event.composer.restore(event.text)
            self.notify("No conversation is open.", severity="warning", markup=False)
            return
        # New lines at the end carry nothing: the message sent ends where its text does;
        # the box gets back all it held.
        sent = event.text.rstrip("\n")
        request = TurnRequest(session, lambda session: send_counted(session, sent), event.text)
        self.turn_runner.send(request, self.view)

    @on(Composer.PageAsked)
    def _page(self, event: Composer.PageAsked) -> None:
        if event.step < 0:
            self.view.scroll_page_up(animate=False)
        else:
            self.view.scroll_page_down(animate=False)

    def focus_turns(self) -> None:
        """Focus the conversation, at once: keys typed right after the key that asked reach
        it, not the widget focused before."""
        self.screen.set_focus(self.view)

    @on(Composer.SentEmpty)
    def _send_held_queue(self) -> None:
        if self.session is not None:
            self.turn_runner.resume(self.session.conversation_id, self.view)

    # --- messages queued while a reply streams ---------------------------------------------

    def watch_shown(self) -> None:
        self._show_queued(self.turn_runner.queue)

    def _show_queued(self, queue: SendQueue) -> None:
        """Draw the messages waiting in the conversation on screen, under its turns."""
        conversation = None if self.shown is None else self.shown.session.conversation_id
        queued = [(m.number, m.text) for m in queue.of(conversation)]
        self.run_worker(
            self.queued.show(queued, held=conversation in queue.held),
            group="queued",
            exit_on_error=False,
        )

    @on(QueuedMessages.EditRequested)
    def _edit_queued(self, event: QueuedMessages.EditRequested) -> None:
        """Editing takes the message out of the queue into the composer, after what it
        holds: Enter there sends it again (queued last while a reply streams)."""
        taken = self.turn_runner.take(event.number)
        if taken is not None:
            self.composer.take_back(taken.text.rstrip("\n"))
            self.composer.focus()

    @on(QueuedMessages.CancelRequested)
    def _cancel_queued(self, event: QueuedMessages.CancelRequested) -> None:
        if self.turn_runner.take(event.number) is not None:
            self.notify("Cancelled the queued message: it is not sent.", markup=False)

    def cancel_queued(self) -> None:
        """Cancel every message queued in the conversation on screen."""
        session = self.session
        taken = () if session is None else self.turn_runner.take_all(session.conversation_id)
        if taken:
            self.notify(
                f"Cancelled {counted(len(taken), 'queued message')}: not sent.", markup=False
            )
        else:
            self.notify("No message is queued in this conversation.", markup=False)

    def _where_streaming(self) -> str:
        """Where the reply streaming is, when not in the conversation on screen: " in “…”"."""
        live, session = self.turn_runner.live, self.session
        if live is None or live.conversation_id is None or session is None:
            return ""
        if live.conversation_id == session.conversation_id:
            return ""
        return f" in {called(session.store, live.conversation_id)}"

    def _turn_drawn(self, drawn: TurnDrawn | None) -> None:
        """A turn's start or end is being drawn: the status line and the composer follow,
        in the same frame."""
        if drawn is None:
            return
        if drawn.unsent is not None:
            self.composer.restore(drawn.unsent)  # never sent: nothing typed is lost
        if self.shows(drawn.request.session):
            # Who is writing; at the end, the reply's facts as stored (or what can be done).
            self.show_status()

    @on(TurnRunner.ServerCounted)
    def _server_counted(self, event: TurnRunner.ServerCounted) -> None:
        # The reply's count as the server's tokenizer gives it (the screen draws the plan).
        if self.shows(event.session) and not self.streaming:
            self.show_status()

    @on(ConversationView.RegenerateRequested)
    def _regenerate(self) -> None:
        """Regenerating keeps the reply it replaces as a variant of the new one: nothing is
        lost, so it does not ask first."""
        self.again()

    # --- a message's dialogs --------------------------------------------------------------

    def _still_newest(self, session: ChatSession, message_id: int) -> bool:
        """Whether `message_id` is still the newest of `session`'s conversation, on screen,
        with nothing streaming: a reply that can be asked again."""
        later = session.store.messages.count_messages(session.stored_id, after=message_id)
        return later == 0 and not self.streaming and self.shows(session)

    @on(ConversationView.DetailsRequested)
    def _details(self, event: ConversationView.DetailsRequested) -> None:
        session = self.session
        if session is not None:
            error = self.turn_runner.failure(session.conversation_id, event.message_id)
            can_retry = self._still_newest(session, event.message_id)
            self.message_dialogs.details(session, event.message_id, error, can_retry=can_retry)

    @on(MessageDialogs.RetryRequested)
    def _retry_from_details(self, event: MessageDialogs.RetryRequested) -> None:
        # The palette works over the dialog: the conversation may have changed since.
        if self._still_newest(event.session, event.reply_id):
            self.turn_runner.forget_failure(event.session.conversation_id, event.reply_id)
            self.again(Resend.RETRY)

    @on(MessageDialogs.RegenerateRequested)
    def _regenerate_seen(self, event: MessageDialogs.RegenerateRequested) -> None:
        # Its request was shown first (f2, ctrl+g): the conversation may have moved since.
        if self._still_newest(event.session, event.reply_id):
            self.again()

    @on(ConversationView.EditRequested)
    def _edit(self, event: ConversationView.EditRequested) -> None:
        if not self.streaming and self.session is not None:
            self.message_dialogs.edit(self.session, event.message_id)

    @on(MessageDialogs.EditDone)
    def _resend(self, event: MessageDialogs.EditDone) -> None:
        result = event.result
        branch_id = None
        if result.later == "branch":
            branch_id = branch_from(event.session, result.message_id, result.text)
        else:
            replace_from(event.session, result.message_id, result.text)
        self.post_message(self.Rewritten(event.session, branch_id))

    @on(ConversationView.CopyRequested)
    def _copy(self, event: ConversationView.CopyRequested) -> None:
        self.message_dialogs.copy(event.text)

    @on(ConversationView.CopyCodeRequested)
    def _copy_code(self, event: ConversationView.CopyCodeRequested) -> None:
        self.message_dialogs.copy_code(event.text)

    @on(Composer.EditLastRequested)
    def _edit_last(self) -> None:
        """Edit the user's last message, as the edit key does on it: the dialog asks whether
        the turns after it are kept as a branch (the default) or replaced."""
        session = self.session
        if self.streaming or session is None or session.conversation_id is None:
            return
        last = session.store.messages.newest_message(session.conversation_id, role="user")
        if last is not None:
            self.message_dialogs.edit(session, last.id)

    # By name, not `@on(MessageItem.LinkClicked)`: the turn widget is imported only once
    # the first turn is drawn (see `item_class`).
    def on_message_item_link_clicked(self, event: MessageItem.LinkClicked) -> None:
        self.message_dialogs.open_link(event.href)

    @on(ConversationView.Left)
    def _back_to_composer(self) -> None:
        self.composer.focus()

    # --- finding --------------------------------------------------------------------------

    async def find(self) -> None:
        """Open the find bar over the turns (mounted the first time it is asked for)."""
        if self.session is None:
            return
        bar = self.find_bar
        if bar is None:
            bar = FindBar(id="find-bar")
            await self.mount(bar, before=self.view)
            bar.look_in(finder(self.session))
        bar.open()

    @on(FindBar.Found)
    async def _found(self, event: FindBar.Found) -> None:
        if await self.show_message(event.message_id):
            self.call_after_refresh(self._highlight_hit, event.message_id, event.query)

    def _highlight_hit(self, message_id: int, query: str, tries: int = 5) -> None:
        """Select the first word found in the message (a reply's Markdown may take a few
        frames to lay out its blocks after it is mounted)."""
        item = self.view.item(message_id)
        if item is None:
            return
        found = first_hit(item.query_one(".message--body"), query)
        if found is not None:
            self.screen.selections = {found[0]: found[1]}
        elif tries > 0:
            self.call_after_refresh(self._highlight_hit, message_id, query, tries - 1)

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.screen.selections = {}
        self.composer.focus()

    async def show_source(self, message_id: int) -> None:
        """Show the message a memory entry came from (it may be far up, gone, or in
        another conversation: one line says so)."""
        session = self.session
        if session is None:
            return
        try:
            message = session.store.messages.get_message(message_id)
        except NotFound:
            self.notify(f"Message #{message_id} no longer exists.", markup=False)
            return
        if message.conversation_id != session.conversation_id:
            title = session.store.conversations.get_conversation(message.conversation_id).title
            self.notify(
                f"Message #{message.id} is in another conversation: {title or message.conversation_id}.",
                markup=False,
            )
            return
        if not await self.show_message(message.id):
            self.notify(f"Message #{message.id} is not shown in this conversation.", markup=False)
            return
        self.view.focus()
