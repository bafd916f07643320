"""A dialog where typing means nothing: the first key typed closes it and goes, with every key
after it, to the screen it was opened from, in the order typed."""

from __future__ import annotations

import asyncio
from typing import ClassVar, TypeVar

from textual import events
from textual.message import Message
from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")

Typed = events.Key | events.Paste


class KeysArrived(Message):
    """Sent from the focused widget behind the keys already on their way to the screen:
    when it reaches the screen, so have they."""

    def __init__(self, arrived: asyncio.Event) -> None:
        super().__init__()
        self.arrived = arrived


class HandsTypingBack(ModalScreen[ResultType]):
    """A read-only dialog opened over the conversation: someone who goes on typing their
    message closes it with the first key, and every key reaches the composer, in order.

    The keys typed before the dialog is gone travel two ways (those already sent into it,
    those still waiting in the app's queue): the hand-over runs in the app's queue, waits
    for the ones sent into the dialog to arrive, closes it and delivers them before any key
    that followed. Opened over another dialog, typing has nowhere to go: it is ignored, and
    the first key says so (`TYPING_NOTE`).
    """

    TYPING_NOTE: ClassVar[str] = "Typing does not reach your message from here: Esc goes back."

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._handed_over: list[Typed] | None = None
        self._told_typing = False
        self.handed_back = False
        """True once typing closed the dialog (its result is then None)."""

    def hands_back(self, event: events.Key) -> bool:
        """Whether `event` is typing meant for the screen under the dialog."""
        # A key bound here (a user's `[keys]` remap may bind a letter) still fires.
        return event.is_printable and event.key not in self.active_bindings

    def takes_typing(self, text: str) -> bool:
        """Keep `text`, typed where it means nothing, in the dialog itself (a text box of
        its own); False to hand it back."""
        return False

    def on_key(self, event: events.Key) -> None:
        if self._handed_over is not None:
            self._keep(event, events.Key(event.key, event.character))
        elif self.hands_back(event):
            self._begin(event, events.Key(event.key, event.character))
        elif (
            event.is_printable
            and event.key not in self.active_bindings
            and event.character is not None
            and self.takes_typing(event.character)
        ):
            event.stop()
            event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        if self._handed_over is not None:
            self._keep(event, events.Paste(event.text))
        elif self.takes_typing(event.text):
            event.stop()
            event.prevent_default()
        else:
            self._begin(event, events.Paste(event.text))

    def _begin(self, event: Typed, fresh: Typed) -> None:
        stack = self.app.screen_stack
        if len(stack) < 2 or stack[-1] is not self or isinstance(stack[-2], ModalScreen):
            if not self._told_typing:
                self._told_typing = True
                self.notify(self.TYPING_NOTE, markup=False)
            return
        self._handed_over = []
        self._keep(event, fresh)
        self.app.call_later(self._hand_over)

    def _keep(self, event: Typed, fresh: Typed) -> None:
        assert self._handed_over is not None
        self._handed_over.append(fresh)
        event.stop()
        event.prevent_default()

    def on_keys_arrived(self, message: KeysArrived) -> None:
        message.stop()
        message.arrived.set()

    async def _hand_over(self) -> None:
        # In the app's queue: no key after this is sent anywhere until the dialog is gone.
        arrived = asyncio.Event()
        (self.focused or self).post_message(KeysArrived(arrived))
        await arrived.wait()
        typed, self._handed_over = self._handed_over or [], None
        if not self.is_current:
            return
        self.handed_back = True
        self.dismiss()
        app = self.app
        for event in typed:
            event.set_sender(app)
            # Through the app's own handling, as if typed now: it sends them where typing
            # goes on the screen under this one.
            await app.on_event(event)
