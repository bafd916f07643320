"""Dialogs opened when background work answers: kept back, per conversation, while the
user does something else."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

if TYPE_CHECKING:
    from ctxchat.tui.screens.result_dialog import ResultDialog


@dataclass(frozen=True, slots=True)
class Asked:
    """Where the user was when they asked for something that takes a while."""

    conversation_id: int | None
    edits: int
    """How many times the composer's text had changed by then."""
    focused: Widget | None


def always() -> bool:
    return True


@dataclass
class ResultReady(Message):
    """A flow's answer that came seconds after its key (`what`: "extract", "models"): the
    dialog `show(unasked)` builds, answered through `done`. `ready` says what waits and,
    where it says `{key}`, the key that opens it (the binding `opens`)."""

    what: str
    asked: Asked
    show: Callable[[bool], ResultDialog[Any]]
    done: Callable[[Any], None]
    ready: str
    opens: str
    still_holds: Callable[[], bool] = always


@dataclass(frozen=True, slots=True)
class KeptResult:
    """A result kept for its key: `open_it` shows it, if it `still_holds()`."""

    open_it: Callable[[], None]
    still_holds: Callable[[], bool]


class ResultsInWaiting:
    """An answer that comes seconds after its key (memory proposals, the model list) opens
    its dialog only if the user has done nothing since: no typing or sending in the
    composer, no focus moved, no dialog or other conversation opened. Otherwise it waits,
    kept for the conversation it was asked in, and a notification says which key opens it;
    that key then opens it instead of asking again.

    The conversation screen keeps one: `where` says where the user is now, `name_of` names a
    conversation (None once deleted), `key_for` gives a binding's key as the footer shows it.
    """

    def __init__(
        self,
        screen: Screen[Any],
        *,
        where: Callable[[], Asked],
        name_of: Callable[[int], str | None],
        key_for: Callable[[str], str],
    ) -> None:
        self._screen = screen
        self._where = where
        self._name_of = name_of
        self._key_for = key_for
        self._waiting: dict[tuple[str, int | None], KeptResult] = {}

    def moved_on(self, asked: Asked) -> bool:
        """Whether the user has done something else since `asked`."""
        return self._screen.app.screen is not self._screen or self._where() != asked

    def offer(self, result: ResultReady, *, asked: bool = True) -> None:
        """Open `result`'s dialog; unless the user has moved on since it was asked (not
        checked when `asked` is False: opened by the key just pressed), or typing closes
        the dialog: then keep it for the conversation asked in, and say so."""
        conversation = result.asked.conversation_id
        ready = result.ready.format(key=self._key_for(result.opens))

        def open_it() -> None:
            self.offer(result, asked=False)

        def keep() -> None:
            note = ready
            if conversation is not None and conversation != self._where().conversation_id:
                title = self._name_of(conversation)
                if title is None:
                    return  # deleted meanwhile: nothing to come back to
                note = f"In “{title}”: {ready}"
            self._waiting[(result.what, conversation)] = KeptResult(open_it, result.still_holds)
            self._screen.notify(note, markup=False, timeout=10)

        if asked and self.moved_on(result.asked):
            keep()
            return
        dialog = result.show(asked)

        def closed(answer: Any) -> None:
            if dialog.handed_back:
                keep()
            else:
                result.done(answer)

        self._screen.app.push_screen(dialog, closed)

    def open_waiting(self, what: str) -> bool:
        """Open the `what` kept for the conversation on screen; False if none is kept (or
        what it answered no longer holds: it is dropped)."""
        waiting = self._waiting.pop((what, self._where().conversation_id), None)
        if waiting is None or not waiting.still_holds():
            return False
        waiting.open_it()
        return True
