"""Semantic recall for a session, when the `embeddings` extra is installed.

Loading the encoder and the conversation's vectors, and embedding new messages, are slow
enough to belong in a worker thread: `prepare` and `embed_rest` are meant to run there, the
latter at a low priority, newest messages first, in small batches, and first of all the
messages a query wanted (`want`). Until `prepare` has run, recall is full-text only.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ctxchat.chat.other_meaning import OtherMeaning, rest_after
from ctxchat.core.across import Others
from ctxchat.core.attribution import Source
from ctxchat.core.history import HistoryMessage
from ctxchat.core.recall import ConversationTerms, RecallCandidate
from ctxchat.embeddings import available

if TYPE_CHECKING:
    from ctxchat.embeddings import MiniLMEncoder, SemanticIndex
    from ctxchat.embeddings.index import Floats
    from ctxchat.store import Store
    from ctxchat.store.search import OtherHit


class SemanticRecall:
    """The encoder and one conversation's vector index."""

    def __init__(self, store: Store, conversation_id: int) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self._encoder: MiniLMEncoder | None = None
        self._index: SemanticIndex | None = None
        self._lock = threading.Lock()
        self._wanted: dict[int, None] = {}  # ordered, newest wish first
        self._wanted_lock = threading.Lock()
        self.other_conversations = OtherMeaning(store, conversation_id)
        """The vectors of the other conversations recall searches (`[recall] across`)."""
        self._query: tuple[str, Floats] | None = None
        self._texts: dict[int, int] = {}
        """A hash of the text each held vector stands for (see `catch_up`)."""

    @staticmethod
    def possible() -> bool:
        """Whether the extra is installed (checked without importing it)."""
        return available()

    @property
    def ready(self) -> bool:
        return self._index is not None

    def prepare(self) -> None:
        """Load the encoder and the stored vectors (in a worker thread)."""
        from ctxchat.embeddings import MiniLMEncoder, SemanticIndex

        with self._lock:
            if self._index is not None:
                return
            encoder = MiniLMEncoder.load()
            index = SemanticIndex.load(
                self.store, self.conversation_id, encoder.model_name, encoder.dimensions
            )
            self._encoder, self._index = encoder, index

    def catch_up(self, history: Sequence[HistoryMessage]) -> None:
        """Hold the vectors the store holds for `history`, as just read from it: those another
        process (a command, a second app) embedded since are loaded; the vector of a message
        deleted since is dropped, and that of one edited since (here or there) is dropped or
        replaced by the one stored for its new text. Without it, recall by meaning would
        search a message by the meaning of its old text, miss what was embedded elsewhere,
        and say that is not embedded yet."""
        index, encoder = self._index, self._encoder
        if index is None or encoder is None:
            return
        texts = {message.id: hash(message.content) for message in history}
        held = index.ids()  # before reading the store: a vector the worker adds after is new
        stored = self.store.search.embedded_ids(self.conversation_id, encoder.model_name)
        known = self._texts
        edited = {
            message_id
            for message_id in held & stored
            if message_id in known and known[message_id] != texts.get(message_id)
        }
        gone = (held - stored) | edited
        # A vector first seen here stands for the text its message holds now: a stored one
        # is deleted when its message is edited, and one embedded here was saved only if
        # the text was still the same.
        self._texts = {i: texts[i] for i in held & stored - edited if i in texts}
        index.discard(gone)
        wanted = (stored - held) | edited
        if wanted:
            added = index.add_blobs(self.store.search.embeddings_of(wanted, encoder.model_name))
            self._texts.update((i, texts[i]) for i in added if i in texts)

    @property
    def embedded(self) -> int:
        """How many of the conversation's messages have a vector (0 until prepared)."""
        index = self._index
        return len(index) if index is not None else 0

    def missing(self, message_ids: Iterable[int]) -> int:
        """How many of `message_ids` have no vector yet (all of them until prepared)."""
        index = self._index
        return sum(1 for message_id in message_ids if index is None or message_id not in index)

    def unembedded(
        self, history: Sequence[HistoryMessage], recent: int, stats: ConversationTerms
    ) -> tuple[int, int]:
        """How many messages older than the newest `recent` have no vector yet, of how many."""
        if self.embedded >= stats.messages:
            return 0, 0  # every message has one (the usual case: no walk over the history)
        older = [m.id for m in history[: max(0, len(history) - recent)] if m.sendable]
        return self.missing(older), len(older)

    def embed_for(self, seconds: float | None, batch: int = 16) -> int:
        """Embed what has no vector yet in the calling thread, wanted messages and the newest
        first, for about `seconds` (None: until all are); how many.

        For commands, which plan once: they plan with what is embedded by then and say how
        much is not, rather than wait minutes for a long imported history. The first batch
        is one message; each next one as many as the time left holds at the pace measured
        (at most `batch`), so long messages or a busy machine overrun by one message at most.
        """
        if seconds is None:
            return self.embed_rest(batch, pause=0.0)
        from ctxchat.embeddings import embed_pending

        encoder, index = self._encoder, self._index
        if encoder is None or index is None:
            return 0
        deadline = time.monotonic() + seconds
        size, total = 1, 0
        while time.monotonic() < deadline:
            started = time.monotonic()
            done = embed_pending(
                self.store,
                encoder,
                self.conversation_id,
                size,
                index=index,
                first=self._take_wanted(size),
            )
            if done == 0:
                break
            total += done
            pace = (time.monotonic() - started) / done
            size = max(1, min(batch, int((deadline - time.monotonic()) / max(pace, 1e-6))))
        return total

    def want(self, message_ids: Sequence[int]) -> None:
        """A query found these messages: embed the ones without a vector before the rest."""
        index = self._index
        if index is None:
            return
        missing = [i for i in message_ids if i not in index]
        if missing:
            with self._wanted_lock:
                self._wanted = dict.fromkeys([*missing, *self._wanted])

    def _take_wanted(self, count: int) -> list[int]:
        with self._wanted_lock:
            wanted = list(self._wanted)
            self._wanted = dict.fromkeys(wanted[count:])
        return wanted[:count]

    def embed_rest(
        self,
        batch: int = 16,
        *,
        pause: float = 1.0,
        cancelled: Callable[[], bool] = lambda: False,
        embedded: Callable[[bool], None] = lambda wanted: None,
    ) -> int:
        """Embed every message that has no vector yet (in a worker thread); how many.

        Wanted messages go first, then the newest. Between batches the thread sleeps
        `pause` times as long as the batch took, so a long history embedded on first use
        leaves the interpreter to the UI about half the time; on Linux the thread also runs
        at a lower priority. It stops early when `cancelled()` says so (the conversation
        was left). After each batch `embedded(wanted)` is called, `wanted` telling whether
        it held messages a query asked for: recall results may change.
        """
        from ctxchat.embeddings import embed_pending

        if self._encoder is None or self._index is None:
            return 0
        _lower_this_threads_priority()
        total = 0
        while not cancelled():
            started = time.monotonic()
            wanted = self._take_wanted(batch)
            done = embed_pending(
                self.store,
                self._encoder,
                self.conversation_id,
                batch,
                index=self._index,
                first=wanted,
            )
            total += done
            if done == 0:
                break
            embedded(bool(wanted))
            rest_after(started, pause, cancelled)
        return total

    def candidates(
        self,
        draft: str,
        limit: int,
        before_id: int | None,
        age_of: Callable[[int], int],
        known: Callable[[int], HistoryMessage | None] | None = None,
    ) -> list[RecallCandidate]:
        """The messages nearest to `draft` in meaning (empty until prepared)."""
        if self._encoder is None or self._index is None:
            return []
        from ctxchat.embeddings import semantic_candidates

        return semantic_candidates(
            self._index,
            self._encoder,
            self.store,
            draft,
            limit,
            before_id,
            age_of,
            known,
            vector=self._vector_of(self._encoder, draft) if draft.strip() else None,
        )

    def prepare_others(self, others: Others | None) -> None:
        """Load the vectors of the other conversations `others` names (in a worker, after
        `prepare`); nothing for None or before the encoder is loaded."""
        encoder = self._encoder
        if encoder is not None and others is not None:
            self.other_conversations.load(encoder, others)

    def embed_others(
        self,
        others: Others | None,
        *,
        pause: float = 0.0,
        cancelled: Callable[[], bool] = lambda: False,
        embedded: Callable[[], None] = lambda: None,
    ) -> int:
        """Embed the messages of `others` that have no vector yet (in a worker, at a low
        priority and with `pause`, after the conversation's own: see `embed_rest`); how
        many."""
        encoder = self._encoder
        if encoder is None or others is None:
            return 0
        _lower_this_threads_priority()
        return self.other_conversations.embed_rest(
            encoder, others, pause=pause, cancelled=cancelled, embedded=embedded
        )

    def other_candidates(
        self, draft: str, others: Others, limit: int, *, newer: int
    ) -> list[OtherHit]:
        """The messages of `others` nearest to `draft` in meaning (closer than
        ACROSS_MIN_COSINE), best first (none until their vectors are loaded). `newer`: the
        messages of this conversation."""
        encoder = self._encoder
        if encoder is None or not draft.strip() or not self.other_conversations.holds(others):
            return []
        from ctxchat.embeddings.candidates import ACROSS_MIN_COSINE, MIN_COSINE

        return self.other_conversations.search(
            self._vector_of(encoder, draft),
            others,
            limit,
            newer=newer,
            min_cosine=MIN_COSINE,
            floor=ACROSS_MIN_COSINE,
        )

    def _vector_of(self, encoder: MiniLMEncoder, text: str) -> Floats:
        """The draft's vector: the last one is kept (a plan asks for it again)."""
        kept = self._query
        if kept is not None and kept[0] == text:
            return kept[1]
        vector: Floats = encoder.encode([text])[0]
        self._query = (text, vector)
        return vector

    def closeness(self, text: str, sources: Sequence[Source]) -> dict[str, float]:
        """How close in meaning `text` is to each source (cosine), by ref; empty until
        prepared. For the "used" estimate of a reply."""
        encoder = self._encoder
        if encoder is None or not sources:
            return {}
        vectors = encoder.encode([text, *(source.text for source in sources)])
        scores = vectors[1:] @ vectors[0]
        return {source.ref: float(score) for source, score in zip(sources, scores, strict=True)}


def _lower_this_threads_priority() -> None:
    """Nice the calling worker thread (Linux gives each thread its own nice value; elsewhere
    setpriority would lower the whole process, UI included, so it is left alone, as is the
    main thread, which runs everything else)."""
    if sys.platform != "linux" or threading.current_thread() is threading.main_thread():
        return
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, max(os.getpriority(os.PRIO_PROCESS, thread), 10))
    except OSError:
        return  # not allowed here: embedding still pauses between batches
