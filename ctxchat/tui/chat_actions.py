"""Sending, stopping, retrying, regenerating and editing turns."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.worker import Worker, WorkerState

from ctxchat.chat.edits import branch_from, replace_from
from ctxchat.chat.session import ChatSession, OverBudget
from ctxchat.chat.turn import (
    NoBackend,
    ReplyDelta,
    TurnEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    regenerate,
    send_message,
)
from ctxchat.core.history import MessageStatus
from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.store import NotFound, Store, StoredMessage
from ctxchat.tui.base import ConversationBase, message_view
from ctxchat.tui.collector import full_collections_held
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.composer import Composer
from ctxchat.tui.widgets.conversation import RETRYABLE, ConversationView
from ctxchat.tui.widgets.layer_panel import ContextPanels, LayerPanel
from ctxchat.tui.widgets.memory_panel import MemoryPanel

if TYPE_CHECKING:
    from ctxchat.tui.screens.edit_message import EditResult
    from ctxchat.tui.widgets.message_item import MessageItem

SESSION_ACTIONS = frozenset(
    {
        "retry",
        "toggle_mode",
        "inspect",
        "summarize",
        "summaries",
        "extract",
        "focus_memory",
        "conversations",
        "new_conversation",
        "switch_model",
        "toggle_context",
    }
)

DRAFT_EDITING_KEYS = frozenset({"backspace", "delete", "ctrl+w", "ctrl+u"})
"""Keys that edit the draft and have no meaning in the conversation."""


def away_note(session: ChatSession, event: TurnFinished | TurnFailed) -> str | None:
    """What a turn that ended badly in a conversation not on screen has to say, or None."""
    if isinstance(event, TurnFailed):
        what = str(event.error)
    elif event.notice:
        what = event.notice
    else:
        return None
    return f"In {called(session.store, session.conversation)}: {what}"


def called(store: Store, conversation_id: int) -> str:
    """A conversation as a notice names it: `“Database”`, or `a deleted conversation`."""
    try:
        return f"“{store.get_conversation(conversation_id).name}”"
    except NotFound:  # deleted meanwhile
        return "a deleted conversation"


class ChatActions(ConversationBase):
    """The conversation's own actions."""

    @on(Composer.Submitted)
    def _send(self, event: Composer.Submitted) -> None:
        if self.streaming:
            event.composer.restore(event.text)
            self._send_held()
            return
        if not self.has_session or self.session.conversation_id is None:
            event.composer.restore(event.text)
            self.notify("No conversation is open.", severity="warning", markup=False)
            return
        # New lines at the end carry nothing (an Enter held while a reply was written leaves
        # one): the message sent ends where its text does; the box gets back all it held.
        sent = event.text.rstrip("\n")
        self.run_turn(self.session, lambda session: send_message(session, sent), event.text)

    @on(Composer.SendHeld)
    def _send_held(self) -> None:
        self.notify(
            f"A reply is still being written{self._where_streaming()}: Enter starts a new line "
            "until it ends (Esc stops it).",
            markup=False,
        )

    def _where_streaming(self) -> str:
        """Where the reply streaming is, when not in the conversation on screen: " in “…”"."""
        live = self.on_screen.live if self.has_session else None
        if live is None or self.on_screen.live_here() is not None or live.conversation_id is None:
            return ""
        return f" in {called(self.session.store, live.conversation_id)}"

    @on(Composer.Changed)
    def _draft_changed(self) -> None:
        self.schedule_plan()

    def action_stop(self) -> None:
        for worker in self.workers:
            if worker.group == "reply" and worker.state is WorkerState.RUNNING:
                worker.cancel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":
            return self.streaming
        # Before the first-run setup opens a conversation only quitting (and the palette)
        # means anything: hide the rest from the footer.
        return self.has_session or action not in SESSION_ACTIONS

    def _retryable(self) -> StoredMessage | None:
        """The conversation's newest message, if it is a reply that failed or stopped."""
        session = self.session
        if session.conversation_id is None:
            return None
        newest = session.store.newest_message(session.conversation_id)
        if newest is None or newest.role != "assistant" or newest.status not in RETRYABLE:
            return None
        if self.streaming:
            return None
        return newest

    def action_retry(self) -> None:
        """Ask again for the newest reply if it failed or stopped, wherever focus is."""
        if not self.has_session:
            return
        if self.streaming:
            self.notify(
                f"A reply is still being written{self._where_streaming()}; Esc stops it.",
                markup=False,
            )
            return
        newest = self._retryable()
        if newest is None:
            self.notify("Nothing to retry: the newest reply is complete.", markup=False)
            return
        self.on_screen.forget_failure(newest.id)
        self._again()

    def _again(self) -> None:
        if self.streaming or not self.has_session:
            return
        self.run_turn(self.session, regenerate)

    @on(ConversationView.RegenerateRequested)
    def _regenerate(self) -> None:
        """Regenerating keeps the reply it replaces as a variant of the new one: nothing is
        lost, so it does not ask first."""
        self._again()

    @on(ConversationView.Left)
    @on(MemoryPanel.Left)
    def _back_to_composer(self) -> None:
        self.composer.focus()

    def typing_goes_to_composer(self, event: events.Event) -> bool:
        """Whether `event`, about to reach the focused widget, is typing meant for the
        composer: a printable key (or a paste) while the conversation, the memory panel or
        a layer panel has focus, or one of the draft's editing keys typed in the
        conversation, where it means nothing (left there, it reached the composer's
        bindings after the keys that followed). The app asks this in its own queue, before
        the key is delivered, so a burst of keys stays in order and never fires an action."""
        typing = (isinstance(event, events.Key) and event.is_printable) or isinstance(
            event, events.Paste
        )
        edits_draft = (
            isinstance(event, events.Key)
            and event.key in DRAFT_EDITING_KEYS
            and isinstance(self.focused, ConversationView)
        )
        focused = self.focused
        if not (typing or edits_draft) or focused is None or self.app.screen is not self:
            return False
        if isinstance(focused, ConversationView) or isinstance(focused.parent, MemoryPanel):
            return True
        # A focused layer panel folds on space (and enter): every other key is typing.
        in_context = any(isinstance(node, ContextPanels) for node in focused.ancestors_with_self)
        folds = isinstance(event, events.Key) and event.key == "space"
        return in_context and not (folds and isinstance(focused, LayerPanel))

    @on(ConversationView.DetailsRequested)
    def _details(self, event: ConversationView.DetailsRequested) -> None:
        store = self.session.store
        message = store.get_message(event.message_id)
        on_screen = self.on_screen
        error = on_screen.failure(message.id)
        if error is not None:
            text, action, detail = error.message, error.action, error.detail
            if error.kind is ErrorKind.UNKNOWN_MODEL and error.available_models:
                action += " Press F4 to pick one."
        else:  # ended in an earlier run: the store keeps the sentence, the action and
            # what the server said
            text, action = message.error or "The reply did not finish.", ""
            detail = message.error_detail or ""
        session = self.session

        def still_newest() -> bool:
            later = store.count_messages(message.conversation_id, after=message.id)
            return later == 0 and not self.streaming and self._shows(session)

        def closed(retry: bool | None) -> None:
            # The palette works over the dialog: the conversation may have changed since.
            if retry and still_newest():
                on_screen.forget_failure(message.id)
                self._again()

        from ctxchat.tui.screens.error_details import ErrorDetails

        stopped = message.status is MessageStatus.INTERRUPTED
        title = "The reply stopped early" if stopped else "The request failed"
        screen = ErrorDetails(text, action, detail=detail, can_retry=still_newest(), title=title)
        self.app.push_screen(screen, closed)

    @on(ConversationView.CopyRequested)
    def _copy(self, event: ConversationView.CopyRequested) -> None:
        self.app.copy_to_clipboard(event.text)
        self.notify("Copied the message to the clipboard.", markup=False)

    # By name, not `@on(MessageItem.LinkClicked)`: the turn widget is imported only once
    # the first turn is drawn (see `item_class`).
    def on_message_item_link_clicked(self, event: MessageItem.LinkClicked) -> None:
        href = event.href

        def opened(confirmed: bool | None) -> None:
            if confirmed:
                self.app.open_url(href)

        from ctxchat.tui.screens.confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen("Open this link?", "Open", detail=href), opened)

    @on(ConversationView.EditRequested)
    def _edit(self, event: ConversationView.EditRequested) -> None:
        if self.streaming:
            return
        store = self.session.store
        message = store.get_message(event.message_id)
        if message.role != "user":
            self.notify("Only your own messages can be edited.", markup=False)
            return
        later = store.count_messages(message.conversation_id, after=message.id)

        def edited(result: EditResult | None) -> None:
            if result is not None:
                self.call_later(self._resend, result)

        from ctxchat.tui.screens.edit_message import EditMessageScreen

        self.app.push_screen(EditMessageScreen(message.id, message.content, later), edited)

    async def _resend(self, result: EditResult) -> None:
        session = self.session
        if result.later == "branch":
            branch_id = branch_from(session, result.message_id, result.text)
            await self.open_conversation(branch_id)
        else:
            replace_from(session, result.message_id, result.text)
            await self.reload_conversation()
        self.run_turn(self.session, regenerate)

    # --- one turn, in a worker --------------------------------------------------------------

    def run_turn(self, session: ChatSession, events: object, draft: str | None = None) -> None:
        """Run one turn; `draft` is the text taken from the composer to send (put back if
        the turn never starts)."""
        reply = self.on_screen.start_turn()
        self.composer.wait_for(reply)
        self.refresh_bindings()
        self._turn(session, reply, events, draft)

    @work(exclusive=True, group="reply", exit_on_error=False)
    async def _turn(
        self, session: ChatSession, reply: LiveTurn, events: object, draft: str | None
    ) -> None:
        with full_collections_held():
            await self._run_turn(session, reply, events, draft)

    async def _run_turn(
        self, session: ChatSession, reply: LiveTurn, events: object, draft: str | None
    ) -> None:
        # Every widget update checks that the turn's conversation is the open one, so
        # switching conversations mid-reply never writes into the wrong chat; the store
        # gets it all, and coming back picks the reply up where it is.
        turn: AsyncGenerator[TurnEvent, None] = events(session)  # type: ignore[operator]
        # The start and the end of a turn each change the conversation, the status line, the
        # panels and the footer: one frame draws each, where every change would lay out
        # the screen (at the end, the whole reply) again.
        ending = contextlib.ExitStack()
        try:
            # Closed on the way out, whatever the worker was awaiting when it was stopped:
            # closing is what marks the reply interrupted in the store.
            async with contextlib.aclosing(turn) as stream:
                async for event in stream:
                    if isinstance(event, TurnStarted):
                        with self.app.batch_update():
                            await self._show_event(session, reply, event)
                        continue
                    if isinstance(event, TurnFinished | TurnFailed):
                        ending.enter_context(self.app.batch_update())
                    await self._show_event(session, reply, event)
        except OverBudget as error:
            self.notify(str(error), severity="error", markup=False, timeout=8)
        except NoBackend as error:
            self.notify(f"{error} Press F4 to choose a server.", severity="error", markup=False)
        except ProviderError as error:
            self.notify(str(error), severity="error", markup=False, timeout=10)
        finally:
            if draft is not None and reply.reply_id is None:
                self.composer.restore(draft)  # never sent: nothing typed is lost
            with ending, self.app.batch_update():
                await self._end_turn(session, reply)

    async def _end_turn(self, session: ChatSession, reply: LiveTurn) -> None:
        """Whatever stopped the turn: the reply is marked, the plan and the keys follow."""
        self.on_screen.end_turn(reply)  # the composer sends again, the Stop key goes
        self.refresh_bindings()
        if self._shows(session):
            item = self._reply_item(reply)
            if item is not None and item.status is MessageStatus.STREAMING:
                # Stopped: the store holds the kept part, marked interrupted.
                stored = session.store.get_message(item.message_id)
                await item.finish(stored.content, stored.status, error=stored.error or "")
                # Its count, and the reasoning's, now that they are stored.
                self.conversation_view.update_message(message_view(stored, session.counter))
            self.show_status()  # the reply's facts as stored, or what can be done about it
            # Opened again mid-reply, the conversation has a new session: the reply's
            # session told it (ChangeLog) that the reply is finished now.
            self.refresh_plan()

    def _shows(self, session: ChatSession) -> bool:
        """Whether the pane shows `session`'s conversation (through any session object)."""
        return self.open_session_for(session) is not None

    async def conversation_shown(self) -> None:
        # Back in the conversation of the reply that is streaming: catch it up at once,
        # not at its next delta (the store's copy is up to a quarter second old).
        await super().conversation_shown()
        live = self.on_screen.live_here()
        if live is not None:
            await self._live_item(live)

    def _reply_item(self, reply: LiveTurn) -> MessageItem | None:
        """The reply's mounted item: the one the turn began, or the one drawn since."""
        if reply.item is not None and reply.item.is_attached:
            return reply.item
        return self.conversation_view.item(reply.reply_id)

    async def _live_item(self, reply: LiveTurn) -> MessageItem | None:
        """The item to stream into; one drawn afresh is first brought up to date."""
        async with reply.catching_up:  # the next delta and the reopening may both ask
            item = self._reply_item(reply)
            if item is not None and item is not reply.item:
                await item.resume(reply)
                reply.item = item
                self.conversation_view.follow(reply)
            return item

    async def _show_event(self, session: ChatSession, reply: LiveTurn, event: TurnEvent) -> None:
        """Draw one event of the turn (only while its conversation is the open one)."""
        shown = self._shows(session)
        if isinstance(event, TurnStarted):
            if event.user_message is None and shown:
                # Retry or regenerate: the replies it replaces left the store; the
                # pane drops them too (the store's last message is the new reply).
                kept = session.store.count_messages(session.conversation) - 1
                loader = self._loader(session)
                await self.conversation_view.replace_all(kept, loader)  # type: ignore[arg-type]
            if event.user_message is not None and shown:
                await self.conversation_view.add_message(message_view(event.user_message))
            reply.reply_id = event.reply_id
            if event.kept:
                self.notify(
                    "The previous reply is kept as a variant: reply: variants "
                    f"({self.key_for('reply.variants')}) brings it back.",
                    markup=False,
                )
            if shown:
                reply.item = await self.conversation_view.begin_reply(
                    MessageView(
                        event.reply_id,
                        "assistant",
                        "",
                        MessageStatus.STREAMING,
                        model=session.model,
                    ),
                    reply,
                )
                self.show_status()
                # A sent message makes the last mode switch's note old news.
                self.query_one("#context", ContextPanels).forget_mode_change()
                self.refresh_plan()
        elif isinstance(event, ReplyDelta):
            reply.received(event.text, event.reasoning)
            if shown and reply.item is not None and reply.item.is_attached:
                await reply.item.arrived()
            elif shown:
                await self._live_item(reply)  # drawn again: catches up with everything so far
        elif isinstance(event, TurnFinished | TurnFailed):
            await self._finish_item(session, self._reply_item(reply) if shown else None, event)

    async def _finish_item(
        self, session: ChatSession, item: MessageItem | None, event: TurnFinished | TurnFailed
    ) -> None:
        reply = event.reply
        if isinstance(event, TurnFailed):
            self.on_screen.reply_failed(session, reply.id, event.error)
        if self._shows(session) and item is not None:
            await item.finish(
                reply.content, reply.status, error=reply.error or "", tokens=reply.tokens
            )
            self.conversation_view.update_message(message_view(reply, session.counter))
        # The reply's marker line tells a failure, a stop or a cut, once. Away from its
        # conversation nothing on screen is marked: a notification is then the one place.
        away = None if self._shows(session) else away_note(session, event)
        if away is not None:
            failed = isinstance(event, TurnFailed)
            self.notify(away, severity="error" if failed else "warning", markup=False, timeout=12)
        if isinstance(event, TurnFailed):
            return
        self.server_answered()
        if away is None and event.notice and reply.finish_reason != "length":
            # Only a cut has a marker line (a content filter's stop has none): tell it here.
            self.notify(event.notice, severity="warning", markup=False, timeout=10)
        self.start_semantic(session)
        self.maybe_summarize(session)
        self._when_the_server_counted(session)

    @work(group="server-counts", exit_on_error=False)
    async def _when_the_server_counted(self, session: ChatSession) -> None:
        """Once the server's tokenizer has counted what the turn sent and received (in the
        background), the panels and the status line say so: its count of the reply, and
        the plan counted by the server rather than "not counted by the server yet"."""
        if session.server_counts is None:
            return
        await session.server.counted()
        if self._shows(session) and not self.streaming:
            self.refresh_plan()
            self.show_status()

    def maybe_summarize(self, session: ChatSession) -> None:
        """Fold what left working memory, in the background; chatting goes on meanwhile."""
        if session.backend is None:
            return
        fold = session.pending_fold()
        if fold is not None:
            self.summarize_in_background(
                session,
                lambda summarizer: summarizer.fold(fold),
                lambda version: (
                    f"Folded {len(fold.messages)} messages into summary v{version.version}."
                ),
                failure="warning",
            )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            # A failure nobody expected still never reaches the user as a traceback.
            self.notify(f"Something failed: {event.worker.error}", severity="error", markup=False)
