"""OtherMeaning: recall by meaning in the other conversations `[recall] across` names."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxchat.core.across import Others
from ctxchat.core.followers import says_little

if TYPE_CHECKING:
    from ctxchat.embeddings import MiniLMEncoder, SemanticIndex
    from ctxchat.embeddings.index import Floats
    from ctxchat.store import Store
    from ctxchat.store.search import OtherHit


def rest_after(started: float, pause: float, cancelled: Callable[[], bool]) -> None:
    """Sleep `pause` times as long as the batch begun at `started` (monotonic) took, in
    short naps, so that a cancel is heard at once."""
    resume = time.monotonic() + (time.monotonic() - started) * pause
    while not cancelled() and (left := resume - time.monotonic()) > 0:
        time.sleep(min(left, 0.1))


class OtherMeaning:
    """The vectors of the other conversations' messages in one index: loaded (in a worker)
    for the conversations an `Others` names, kept current by embedding what they lack,
    newest first, and searched with the draft's vector. Until it is loaded for the `Others`
    a search asks about, that search finds nothing here (full-text search still does)."""

    def __init__(self, store: Store, conversation_id: int) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self._index: SemanticIndex | None = None
        self._others: Others | None = None
        """What `_index` holds the vectors of."""
        self.changes = 0
        """Bumped each time the vectors held change (loaded, more embedded): recall's kept
        results from before are stale."""
        self.pending = True
        """Whether some of their messages have no vector yet (as of the load or the last
        catch-up): recall by meaning does not find those."""
        self._lock = threading.Lock()

    def holds(self, others: Others) -> bool:
        """Whether the vectors of `others` are loaded (a search of them can find)."""
        return self._index is not None and self._others == others

    def holds_all(self, others: Others) -> bool:
        """Whether the vectors of every message of `others` are loaded."""
        return self.holds(others) and not self.pending

    def load(self, encoder: MiniLMEncoder, others: Others) -> None:
        """Load the stored vectors of `others` (in a worker); nothing when they are loaded."""
        from ctxchat.embeddings import SemanticIndex

        with self._lock:
            if self.holds(others):
                return
            rows = self.store.other_embeddings.load_other_embeddings(
                self.conversation_id, encoder.model_name, others.project_id
            )
            index = SemanticIndex.of_blobs(
                [(message_id, blob) for message_id, blob, _ in rows],
                encoder.dimensions,
                conversations=[conversation for _, _, conversation in rows],
            )
            self.pending = bool(
                self.store.other_embeddings.other_messages_to_embed(
                    self.conversation_id, encoder.model_name, others.project_id, limit=1
                )
            )
            self._index, self._others = index, others
            self.changes += 1

    def embed_rest(
        self,
        encoder: MiniLMEncoder,
        others: Others,
        batch: int = 16,
        *,
        pause: float = 0.0,
        cancelled: Callable[[], bool] = lambda: False,
        embedded: Callable[[], None] = lambda: None,
    ) -> int:
        """Embed the messages of `others` that have no vector yet, newest first, until
        none is left or `cancelled()` (in a worker); `embedded()` after each batch. How
        many. Their vectors are kept in the store, as a conversation's own are. Between
        batches it sleeps `pause` times as long as the batch took (the app's worker leaves
        the interpreter to the UI that way, as `SemanticRecall.embed_rest` does)."""
        from ctxchat.embeddings.background import embed_messages

        total = 0
        while not cancelled():
            started = time.monotonic()
            with self._lock:
                index = self._index if self._others == others else None
            if index is None:
                break  # loaded for other conversations since: the next catch-up does these
            pending = self.store.other_embeddings.other_messages_to_embed(
                self.conversation_id, encoder.model_name, others.project_id, batch
            )
            if not pending:
                self.pending = False
                break
            embed_messages(
                self.store,
                encoder,
                [(message_id, content) for message_id, content, _ in pending],
                index,
                [conversation for _, _, conversation in pending],
            )
            self.changes += 1
            total += len(pending)
            embedded()
            rest_after(started, pause, cancelled)
        return total

    def search(
        self,
        query: Floats,
        others: Others,
        limit: int,
        *,
        newer: int,
        min_cosine: float,
        floor: float,
    ) -> list[OtherHit]:
        """The messages of `others` nearest to `query` (a normalised vector) above `floor`,
        best first, as recall hits ranked on BM25's scale from `min_cosine` (see
        `cosine_relevance`, the scale of the conversation's own hits): none until their
        vectors are loaded. A message that says little ("Noted.") is ranked by itself, not
        read with the one before it. `newer`: how many messages the recalling conversation holds."""
        from ctxchat.embeddings.candidates import cosine_relevance

        index = self._index
        if index is None or self._others != others or limit <= 0:
            return []
        found = [
            (message_id, near, read)
            for message_id, near, read in index.search_in_context(query, limit)
            if near > floor
        ]
        if not found:
            return []
        ids = [message_id for message_id, _, _ in found]
        hits = self.store.other_embeddings.other_messages(
            ids,
            [-cosine_relevance(near, min_cosine) for _, near, _ in found],
            [float(cosine) for cosine in index.vectors_of(ids) @ query],
            nears=[near for _, near, _ in found],
            in_context=[read for _, _, read in found],
            newer=newer,
        )
        kept = []
        for hit in hits:
            found_as = hit.candidate
            if found_as.in_context and says_little(found_as.content):
                # "Noted." read with the message before it would only stand for that one.
                cosine = found_as.cosine if found_as.cosine is not None else 0.0
                if cosine <= floor:
                    continue
                hit = dataclasses.replace(
                    hit,
                    candidate=dataclasses.replace(
                        found_as,
                        bm25=-cosine_relevance(cosine, min_cosine),
                        near=cosine,
                        in_context=False,
                    ),
                )
            kept.append(hit)
        kept.sort(key=lambda hit: hit.candidate.bm25)
        return kept
