"""SemanticCatchUp: the encoder loaded and a conversation's missing vectors embedded, in a thread."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message
from textual.message_pump import MessagePump
from textual.worker import Worker, get_current_worker

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.core.across import Others

VECTORS_SHOWN_EVERY = 1.0
"""How often (seconds) the plan is drawn again while a long history's vectors come in."""


class SemanticCatchUp:
    """Loads the encoder, then embeds what of `session`'s conversation has no vector yet,
    newest first, in a thread (`run`); then the same for the `others` conversations recall
    searches besides it. Recall searches by meaning from the moment the
    encoder is loaded, among the vectors there are: each time it is worth drawing the plan
    again (at once for what a query wanted, else once in a while) `Ready` goes to `tell`.
    It stops when the worker is cancelled (the app is quitting) or the user has moved to
    another conversation (`still_shown` turns false)."""

    @dataclass
    class Ready(Message):
        """`semantic` can serve `session`'s conversation now, with more vectors than before."""

        session: ChatSession
        semantic: SemanticRecall

    def __init__(
        self,
        session: ChatSession,
        semantic: SemanticRecall,
        *,
        tell: MessagePump,
        still_shown: Callable[[], bool],
        others: Others | None = None,
    ) -> None:
        self.session = session
        self.semantic = semantic
        self.others = others
        """The other conversations recall searches (their vectors load and catch up after
        the conversation's own)."""
        self._tell = tell
        self._still_shown = still_shown
        self._told = 0.0

    def run(self) -> None:
        """Load, tell, embed the rest (telling as it goes), tell once more at the end (in a
        thread worker)."""
        worker = get_current_worker()
        self.semantic.prepare()
        self._ready(worker)

        def stopped() -> bool:
            return worker.is_cancelled or not self._still_shown()

        def embedded(wanted: bool) -> None:
            # What a query wanted changes its results now; the rest, once in a while.
            if wanted or time.monotonic() - self._told >= VECTORS_SHOWN_EVERY:
                self._ready(worker)

        if self.semantic.catch_up(cancelled=stopped, embedded=embedded):
            self._ready(worker)
        if self.others is None or stopped():
            return
        self.semantic.prepare_others(self.others)
        self._ready(worker)
        if self.semantic.catch_up_others(
            self.others, pause=1.0, cancelled=stopped, embedded=lambda: embedded(False)
        ):
            self._ready(worker)

    def _ready(self, worker: Worker[None]) -> None:
        if not worker.is_cancelled:  # else the app is closing: nothing to show
            self._tell.post_message(self.Ready(self.session, self.semantic))
        self._told = time.monotonic()
