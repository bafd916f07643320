"""TurnRunner: runs one turn at a time and owns its reply while it streams, and its end."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.reactive import var

from ctxchat.chat.session import ChatSession, OverBudget
from ctxchat.chat.turn import (
    NoBackend,
    ReplyDelta,
    TurnEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from ctxchat.chat.write_lock import DatabaseWait, when_writable
from ctxchat.core.counts import counted
from ctxchat.core.history import MessageStatus
from ctxchat.model.errors import ProviderError
from ctxchat.store import NotFound, Store
from ctxchat.tui.collector import full_collections_held
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.parts.part import Part
from ctxchat.tui.reply_failures import ReplyFailures
from ctxchat.tui.stored_views import message_view, session_message_view, stored_loader
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.conversation import ConversationView

if TYPE_CHECKING:
    from ctxchat.model.errors import ProviderError as Failure
    from ctxchat.tui.widgets.message_item import MessageItem

TurnEvents = Callable[[ChatSession], AsyncGenerator[TurnEvent, None]]
"""What a turn does in a session: `send_message`, `regenerate`, … (see chat/turn.py)."""


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """One turn to run: in which session, doing what, and the text it sends as typed."""

    session: ChatSession
    events: TurnEvents
    draft: str | None = None
    """The composer's text this turn sends (given back if the turn never starts); None for a
    turn that sends nothing new (a retry, a regeneration)."""


@dataclass(frozen=True, slots=True)
class Queued:
    """A message sent while a reply streamed: it waits for its turn (`number` names it
    for this run)."""

    number: int
    request: TurnRequest

    @property
    def text(self) -> str:
        return self.request.draft or ""

    @property
    def conversation_id(self) -> int | None:
        return self.request.session.conversation_id


@dataclass(frozen=True, slots=True)
class SendQueue:
    """The messages waiting to be sent, oldest first, in every conversation; and the
    conversations whose queue is held (their reply failed or was stopped): they go on once
    the user sends again there."""

    messages: tuple[Queued, ...] = ()
    held: frozenset[int | None] = frozenset()

    def of(self, conversation_id: int | None) -> tuple[Queued, ...]:
        """The messages waiting in `conversation_id`, in the order they go."""
        return tuple(m for m in self.messages if m.conversation_id == conversation_id)

    def next(self) -> Queued | None:
        """The message to send next: the oldest of a conversation not held."""
        return next((m for m in self.messages if m.conversation_id not in self.held), None)

    def without(self, *gone: Queued) -> SendQueue:
        messages = tuple(m for m in self.messages if m not in gone)
        held = self.held & {m.conversation_id for m in messages}
        return SendQueue(messages, held)


@dataclass(frozen=True, slots=True)
class TurnDrawn:
    """A turn's start or end, drawn in the frame being drawn (others draw what else
    changes then: the status line, the plan)."""

    request: TurnRequest
    turn: LiveTurn
    started: TurnStarted | None = None
    """The start just drawn; None for the end."""
    outcome: TurnFinished | TurnFailed | None = None
    """At the end: how the turn finished or failed; None when it was stopped, or never
    began (refused before anything was stored)."""

    @property
    def unsent(self) -> str | None:
        """The composer's text the turn was to send, if it never began: it goes back."""
        never_began = self.started is None and self.turn.reply_id is None
        return self.request.draft if never_began else None


def called(store: Store, conversation_id: int) -> str:
    """A conversation as a notice names it: `“Database”`, or `a deleted conversation`."""
    try:
        return f"“{store.conversations.get_conversation(conversation_id).name}”"
    except NotFound:  # deleted meanwhile
        return "a deleted conversation"


def away_note(session: ChatSession, event: TurnFinished | TurnFailed) -> str | None:
    """What a turn that ended badly in a conversation not on screen has to say, or None."""
    if isinstance(event, TurnFailed):
        what = str(event.error)
    elif event.notice:
        what = event.notice
    else:
        return None
    return f"In {called(session.store, session.stored_id)}: {what}"


class TurnRunner(Part):
    """Runs a turn in its worker, one at a time: draws its start, streams its reply into
    its `LiveTurn` (paced by the item drawing it), and draws its end, however it ends
    (finished, failed, stopped). Each drawing checks that the turn's conversation is the one
    on screen (`shown`); the store gets it all.

    The start and the end are each drawn in one frame, with what else changes then: the
    screen watches `drawn` and draws the status line and the plan in that frame. `Ended`
    follows, for what the end sets going (summaries, recall, the server's counts).
    """

    live: var[LiveTurn | None] = var(None, bindings=True)
    """The reply streaming now: in the conversation on screen, or in one left while it
    streams (the footer's Stop key follows it)."""
    drawn: var[TurnDrawn | None] = var(None, always_update=True, init=False)
    """The turn's start or end drawn last, set in the frame that draws it."""
    database_locked: var[bool] = var(False, init=False)
    """Whether the turn waits for another program's write lock (`chat/write_lock.py`)."""
    queue: var[SendQueue] = var(SendQueue(), init=False)
    """The messages sent while a reply streamed, each waiting to be sent as its own turn
    (the column shows those of the conversation on screen)."""

    @dataclass
    class Ended(Message):
        """The turn is over and its end drawn: `outcome` is how it finished or failed;
        None when it was stopped, or never began."""

        request: TurnRequest
        turn: LiveTurn
        outcome: TurnFinished | TurnFailed | None

    @dataclass
    class ServerCounted(Message):
        """The server's tokenizer has counted what `session`'s last turn sent and received."""

        session: ChatSession

    def __init__(self) -> None:
        super().__init__()
        self.failures = ReplyFailures()
        """This run's failed replies, per conversation (the error as the client told it)."""
        self._numbers = itertools.count(1)

    @property
    def streaming(self) -> bool:
        """Whether a reply streams (in any conversation)."""
        return self.live is not None and self.live.streaming

    def live_in(self, conversation_id: int | None) -> LiveTurn | None:
        """The reply streaming in `conversation_id`, if one is."""
        live = self.live
        if live is None or not live.streaming or live.conversation_id != conversation_id:
            return None
        return live

    def begin(self, conversation_id: int | None) -> LiveTurn:
        """A reply begins in `conversation_id`: it is the one streaming."""
        self.live = LiveTurn(conversation_id)
        return self.live

    def end(self, turn: LiveTurn) -> None:
        """`turn` is over: nothing streams."""
        turn.ended()
        if self.live is turn:
            self.live = None

    def failure(self, conversation_id: int | None, reply_id: int) -> Failure | None:
        """How `reply_id` of `conversation_id` failed this run, if it did."""
        return self.failures.of(conversation_id, reply_id)

    def forget_failure(self, conversation_id: int | None, reply_id: int) -> None:
        """`reply_id` is asked again: its failure no longer holds."""
        self.failures.forget(conversation_id, reply_id)

    # --- the run ------------------------------------------------------------------------

    def start(self, request: TurnRequest, view: ConversationView) -> LiveTurn:
        """Run `request`'s turn; it is drawn in `view` while that shows its conversation."""
        turn = self.begin(request.session.conversation_id)
        self._run(request, turn, view)
        return turn

    def send(self, request: TurnRequest, view: ConversationView) -> None:
        """Send `request`'s message now, or queue it behind the reply streaming and the
        messages already waiting in its conversation. Sending in a conversation whose queue
        is held lets it go on: the oldest first, this one last."""
        conversation = request.session.conversation_id
        queue = self.queue
        if not self.streaming and not queue.of(conversation):
            self.start(request, view)
            return
        queued = Queued(next(self._numbers), request)
        self.queue = SendQueue((*queue.messages, queued), queue.held - {conversation})
        if not self.streaming:
            self._send_next(view)

    def resume(self, conversation_id: int | None, view: ConversationView) -> bool:
        """Let `conversation_id`'s held queue go on; False when it has nothing waiting."""
        queue = self.queue
        if not queue.of(conversation_id):
            return False
        self.queue = SendQueue(queue.messages, queue.held - {conversation_id})
        if not self.streaming:
            self._send_next(view)
        return True

    def take(self, number: int) -> Queued | None:
        """Take queued message `number` out of the queue (to edit or cancel it)."""
        found = next((m for m in self.queue.messages if m.number == number), None)
        if found is not None:
            self.queue = self.queue.without(found)
        return found

    def take_all(self, conversation_id: int | None) -> tuple[Queued, ...]:
        """Take every message waiting in `conversation_id` out of the queue."""
        taken = self.queue.of(conversation_id)
        self.queue = self.queue.without(*taken)
        return taken

    def _send_next(self, view: ConversationView) -> None:
        """Start the next message waiting, if one is (in its own conversation's session)."""
        queued = self.queue.next()
        if queued is None or self.streaming:
            return
        self.queue = self.queue.without(queued)
        self.start(queued.request, view)

    def _hold_after(self, request: TurnRequest, outcome: TurnFinished | TurnFailed | None) -> None:
        """A reply that failed, was stopped or never began holds its conversation's queue:
        the messages after it were written expecting it. Said once; sending there (Enter)
        lets them go."""
        if isinstance(outcome, TurnFinished):
            return
        conversation = request.session.conversation_id
        count = len(self.queue.of(conversation))
        if not count:
            return
        self.queue = SendQueue(self.queue.messages, self.queue.held | {conversation})
        why = "failed" if isinstance(outcome, TurnFailed) else "did not finish"
        waits = "waits" if count == 1 else "wait"
        self.notify(
            f"The reply {why}: {counted(count, 'queued message')} {waits}, held. "
            "Enter in the composer sends them, in order.",
            severity="warning",
            markup=False,
            timeout=10,
        )

    def stop(self) -> None:
        """Stop the reply being written, if one is (the store keeps what came, marked
        interrupted)."""
        self.workers.cancel_group(self, "reply")

    @work(exclusive=True, group="reply", exit_on_error=False)
    async def _run(self, request: TurnRequest, turn: LiveTurn, view: ConversationView) -> None:
        session = request.session
        outcome: TurnFinished | TurnFailed | None = None
        try:
            with full_collections_held():
                # Closed on the way out, whatever the worker was awaiting when it was
                # stopped: closing is what marks the reply interrupted in the store.
                async with contextlib.aclosing(when_writable(session, request.events)) as events:
                    async for event in events:
                        if isinstance(event, TurnStarted):
                            turn.reply_id = event.reply_id
                            with self.app.batch_update():
                                if self.shows(session):
                                    await self._show_start(session, turn, event, view)
                                self.drawn = TurnDrawn(request, turn, started=event)
                        elif isinstance(event, ReplyDelta):
                            turn.received(event.text, event.reasoning)
                            await self._draw(turn, session, view)
                        elif isinstance(event, TurnFinished | TurnFailed):
                            outcome = event
                        elif isinstance(event, DatabaseWait):
                            self.database_locked = event.waiting
        except OverBudget as error:
            self.notify(str(error), severity="error", markup=False, timeout=8)
        except NoBackend as error:
            self.notify(f"{error} Press F4 to choose a server.", severity="error", markup=False)
        except ProviderError as error:
            self.notify(str(error), severity="error", markup=False, timeout=10)
        finally:
            self.database_locked = False
            with self.app.batch_update():
                await self._show_end(session, turn, outcome, view if self.shows(session) else None)
                self.drawn = TurnDrawn(request, turn, outcome=outcome)
            self.post_up(lambda: self.Ended(request, turn, outcome))
            if isinstance(outcome, TurnFinished):
                self._count_with_server(session)
            self._hold_after(request, outcome)
            # Once this worker is done: a reply worker started from inside it would cancel
            # it (they run one at a time).
            self.call_later(self._send_next, view)

    async def _draw(self, turn: LiveTurn, session: ChatSession, view: ConversationView) -> None:
        """Draw what arrived, paced by the item drawing it (a write waits for the last one
        to be drawn)."""
        if not self.shows(session):
            return  # the store gets it; the pane catches up when the conversation is back
        if turn.item is not None and turn.item.is_attached:
            await turn.item.arrived()
        else:
            await self.live_item(view)  # drawn again: catches up with everything so far

    async def live_item(self, view: ConversationView) -> MessageItem | None:
        """The item the reply streams into, in `view`; one drawn afresh (its conversation
        opened again, or paged back in) is first brought up to date."""
        turn = self.live
        if turn is None:
            return None
        async with turn.catching_up:  # the next delta and the reopening may both ask
            item = self._item(turn, view)
            if item is not None and item is not turn.item:
                await item.resume(turn)
                turn.item = item
                view.follow(turn)
            return item

    @staticmethod
    def _item(turn: LiveTurn, view: ConversationView) -> MessageItem | None:
        """The reply's mounted item: the one the turn began, or the one drawn since."""
        if turn.item is not None and turn.item.is_attached:
            return turn.item
        return view.item(turn.reply_id)

    # --- drawing the start and the end -------------------------------------------------

    async def _show_start(
        self, session: ChatSession, turn: LiveTurn, event: TurnStarted, view: ConversationView
    ) -> None:
        """Draw the turn's start: the user's message (or, for a retry or regeneration, the
        replies it replaces gone) and the reply."""
        if event.user_message is None:
            # The replies it replaces left the store: the pane drops them too (the store's
            # last message is the new reply).
            kept = session.store.messages.count_messages(session.stored_id) - 1
            await view.replace_all(kept, stored_loader(session))
        else:
            await view.add_message(message_view(event.user_message))
        reply = MessageView(
            event.reply_id, "assistant", "", MessageStatus.STREAMING, model=session.model
        )
        turn.item = await view.begin_reply(reply, turn)

    async def _show_end(
        self,
        session: ChatSession,
        turn: LiveTurn,
        outcome: TurnFinished | TurnFailed | None,
        view: ConversationView | None,
    ) -> None:
        """End the turn: its item in `view` (None when its conversation is not on screen)
        shows the reply as stored, its failure is kept, nothing streams any more. A turn
        that ended badly away from its conversation is told in a notification."""
        item = None if view is None else self._item(turn, view)
        if outcome is not None:
            await self._finish(session, outcome, item, view)
        self.end(turn)  # messages are sent again, not queued; the Stop key goes
        if view is not None and item is not None and item.status is MessageStatus.STREAMING:
            # Stopped: the store holds the kept part, marked interrupted.
            stored = session.store.messages.get_message(item.message_id)
            await item.finish(stored.content, stored.status, error=stored.error or "")
            # Its count, and the reasoning's, now that they are stored.
            view.update_message(session_message_view(stored, session))

    async def _finish(
        self,
        session: ChatSession,
        outcome: TurnFinished | TurnFailed,
        item: MessageItem | None,
        view: ConversationView | None,
    ) -> None:
        reply = outcome.reply
        if isinstance(outcome, TurnFailed):
            self.failures.failed(session.stored_id, reply.id, outcome.error)
        if view is not None and item is not None:
            await item.finish(
                reply.content, reply.status, error=reply.error or "", tokens=reply.tokens
            )
            view.update_message(session_message_view(reply, session))
        # The reply's marker line tells a failure, a stop or a cut, once. Away from its
        # conversation nothing on screen is marked: a notification is then the one place.
        away = None if view is not None else away_note(session, outcome)
        if away is not None:
            failed = isinstance(outcome, TurnFailed)
            self.notify(away, severity="error" if failed else "warning", markup=False, timeout=12)
        elif (
            isinstance(outcome, TurnFinished) and outcome.notice and reply.finish_reason != "length"
        ):
            # Only a cut has a marker line (a content filter's stop has none): tell it here.
            self.notify(outcome.notice, severity="warning", markup=False, timeout=10)

    @work(group="server-counts", exit_on_error=False)
    async def _count_with_server(self, session: ChatSession) -> None:
        """Once the server's tokenizer has counted what the turn sent and received (in the
        background), say so (`ServerCounted`)."""
        if session.server_counts is None:
            return
        await session.server.counted()
        self.post_up(lambda: self.ServerCounted(session))
