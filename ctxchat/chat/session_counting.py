"""The session's token counter, and the counts it keeps in the store for later runs."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ctxchat.core.tokens import CachingCounter, DeferredCounter, TokenCounter, count_message
from ctxchat.store import Store, StoreError


class SessionCounting:
    """The counter of the model a session talks to (`ChatSession.counting`): a new one
    for another model (`renew`), and the counts it keeps in the store (`keeping`)."""

    def __init__(self, store: Store, model: str, counter: TokenCounter | None = None) -> None:
        self.store = store
        self._keeps_as: str | None = None
        self.counter = self._counter_for(model, counter)

    def renew(self, model: str) -> None:
        """Count for `model` from now on (its own tokenizer, its kept counts)."""
        self.counter = self._counter_for(model)

    def count(self, role: str, content: str) -> int:
        return count_message(self.counter, role, content).tokens

    def _counter_for(self, model: str, counter: TokenCounter | None = None) -> CachingCounter:
        """A counter for `model` that, with the model's own tokenizer, uses and adds to the
        counts the store keeps: what a plan needs besides the draft is counted only once."""
        if counter is not None:
            self._keeps_as = None
            return CachingCounter(counter)
        deferred = DeferredCounter(model)
        self._keeps_as = deferred.name
        return CachingCounter(deferred, kept=self.store.counts.kept_counts(deferred.name))

    @contextlib.contextmanager
    def keeping(self) -> Iterator[None]:
        """Keep in the store, for later runs, the count of every text counted inside: the
        texts of a plan without a draft, or the reasoning of the turns on screen.

        The whole set is written each time, so counts the store dropped (an edit, a
        deletion, the cap) come back, and the ones in use stay the newest.
        """
        counter, encoding = self.counter, self._keeps_as
        if encoding is None:
            yield
            return
        with counter.recording() as counted:
            yield
        # Only counts of the tokenizer the kept ones belong to (not of an estimate).
        if counted and counter.name == encoding:
            try:
                self.store.counts.keep_counts(encoding, counted)
            except StoreError:
                return  # kept counts only save time: the plan stands without them
            counter.keep(counted)
