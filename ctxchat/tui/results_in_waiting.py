"""Dialogs opened when background work answers: kept back, per conversation, while the
user does something else."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from textual import on
from textual.widget import Widget

from ctxchat.store import NotFound
from ctxchat.tui.base import ConversationBase
from ctxchat.tui.screens.result_dialog import ResultDialog
from ctxchat.tui.widgets.composer import Composer

ResultType = TypeVar("ResultType")


@dataclass(frozen=True, slots=True)
class Asked:
    """Where the user was when they asked for something that takes a while."""

    conversation_id: int | None
    edits: int
    """How many times the composer's text had changed by then."""
    focused: Widget | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A result kept for its key: `open_it` shows it, if it `still_holds()`."""

    open_it: Callable[[], None]
    still_holds: Callable[[], bool]


def always() -> bool:
    return True


class ResultsInWaiting(ConversationBase):
    """An answer that comes seconds after its key (memory proposals, the model list) opens
    its dialog only if the user has done nothing since: no typing or sending in the
    composer, no focus moved, no dialog or other conversation opened. Otherwise it waits,
    kept for the conversation it was asked in, and a notification says which key opens it;
    that key then opens it instead of asking again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._composer_edits = 0
        self._waiting: dict[tuple[str, int | None], Waiting] = {}

    @on(Composer.Changed)
    def _count_edit(self) -> None:
        self._composer_edits += 1

    def asked(self) -> Asked:
        """Where the user is now, as they ask."""
        conversation = self.session.conversation_id if self.has_session else None
        return Asked(conversation, self._composer_edits, self.focused)

    def moved_on(self, asked: Asked) -> bool:
        """Whether the user has done something else since `asked`."""
        return (
            self.app.screen is not self
            or self._composer_edits != asked.edits
            or self.focused is not asked.focused
            or not self.has_session
            or self.session.conversation_id != asked.conversation_id
        )

    def offer(
        self,
        what: str,
        asked: Asked | None,
        show: Callable[[bool], ResultDialog[ResultType]],
        done: Callable[[ResultType | None], None],
        *,
        ready: str,
        still_holds: Callable[[], bool] = always,
    ) -> None:
        """Open the dialog `show(unasked)` builds, answered through `done`; unless the user
        has moved on since `asked` (None: asked by the key just pressed), or typing closes
        the dialog: then keep it as `what` for the conversation asked in, and say `ready`
        (what waits, and the key that opens it)."""
        conversation = asked.conversation_id if asked is not None else self.session.conversation_id

        def open_it() -> None:
            self.offer(what, None, show, done, ready=ready, still_holds=still_holds)

        def keep() -> None:
            note = ready
            if conversation is not None and conversation != self.session.conversation_id:
                try:
                    title = self.session.store.get_conversation(conversation).name
                except NotFound:
                    return  # deleted meanwhile: nothing to come back to
                note = f"In “{title}”: {ready}"
            self._waiting[(what, conversation)] = Waiting(open_it, still_holds)
            self.notify(note, markup=False, timeout=10)

        if asked is not None and self.moved_on(asked):
            keep()
            return
        dialog = show(asked is not None)

        def closed(result: ResultType | None) -> None:
            if dialog.handed_back:
                keep()
            else:
                done(result)

        self.app.push_screen(dialog, closed)

    def open_waiting(self, what: str) -> bool:
        """Open the `what` kept for the conversation on screen; False if none is kept (or
        what it answered no longer holds: it is dropped)."""
        if not self.has_session:
            return False
        waiting = self._waiting.pop((what, self.session.conversation_id), None)
        if waiting is None or not waiting.still_holds():
            return False
        waiting.open_it()
        return True
