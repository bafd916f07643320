"""SemanticIndex: one conversation's message vectors in memory, searched by cosine similarity."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ctxchat.store import Store

Floats = npt.NDArray[np.float32]

# Vectors are stored as little-endian float32, `dimensions` of them, one blob per message.
_BLOB_DTYPE = np.dtype("<f4")

# A message is also read with the one before it: the vector of the two, the earlier at this
# weight, matches a reply ("a mix of drama and romance") to what asked about it ("your
# screenplay"), which the reply alone does not (bench/NOTES.md).
CONTEXT_WEIGHT = 0.7


def vector_blob(vector: Floats) -> bytes:
    """The bytes a vector is stored as."""
    return np.ascontiguousarray(vector, dtype=_BLOB_DTYPE).tobytes()


def vectors_from_blobs(blobs: Sequence[bytes], dimensions: int) -> Floats:
    """The vectors (len(blobs) × dimensions) stored as `blobs`, all of that size."""
    if not blobs:
        return np.zeros((0, dimensions), dtype=np.float32)
    data = np.frombuffer(b"".join(blobs), dtype=_BLOB_DTYPE)
    return data.reshape(len(blobs), dimensions).astype(np.float32)


class SemanticIndex:
    """The normalised vectors of one conversation's messages, by message id (or of several
    conversations' messages, each added with its conversation).

    Vectors live in one matrix that grows by doubling, so `add` is cheap, and `search` is a
    matrix-vector product plus a partial sort. A lock makes it safe for a worker thread to
    `add` while the UI thread searches.
    """

    def __init__(self, dimensions: int, conversation_id: int | None = None) -> None:
        self.dimensions = dimensions
        self.conversation_id = conversation_id
        """The conversation whose messages these are (None: of several)."""
        self._lock = threading.Lock()
        self._vectors: Floats = np.zeros((0, dimensions), dtype=np.float32)
        self._ids: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        # Each row's conversation, for an index of several (else 0 throughout): a message
        # is read with the one before it in its own conversation.
        self._conversations: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._count = 0
        self._rows: dict[int, int] = {}
        # Rows in ascending id order (the usual case: loaded oldest first, new messages
        # appended) let `before_id` cut a prefix instead of masking every row.
        self._ascending = True
        # For each row, the row of the message before it (−1: none) and the cosine of the
        # two: worked out by the first `search_in_context` after a change.
        self._previous: tuple[npt.NDArray[np.int64], Floats] | None = None

    @classmethod
    def load(cls, store: Store, conversation_id: int, model: str, dimensions: int) -> SemanticIndex:
        """The vectors `model` made for the conversation's messages (a blob of another size,
        from some other model under the same name, is skipped)."""
        return cls.of_blobs(
            store.search.load_embeddings(conversation_id, model), dimensions, conversation_id
        )

    @classmethod
    def of_blobs(
        cls,
        rows: Sequence[tuple[int, bytes]],
        dimensions: int,
        conversation_id: int | None = None,
        conversations: Sequence[int] | None = None,
    ) -> SemanticIndex:
        """An index of the stored (message id, vector bytes) `rows` (of `conversations`,
        one for each row, when they are several); a blob of another size (some other model
        under the same name) is skipped."""
        index = cls(dimensions, conversation_id)
        index.add_blobs(rows, conversations)
        return index

    def add_blobs(
        self, rows: Sequence[tuple[int, bytes]], conversations: Sequence[int] | None = None
    ) -> list[int]:
        """Add the stored (message id, vector bytes) `rows` as `add` does; a blob of another
        size (some other model under the same name) is skipped. The ids added."""
        size = self.dimensions * _BLOB_DTYPE.itemsize
        kept = [row for row, (_, blob) in enumerate(rows) if len(blob) == size]
        ids = [rows[row][0] for row in kept]
        self.add(
            ids,
            vectors_from_blobs([rows[row][1] for row in kept], self.dimensions),
            None if conversations is None else [conversations[row] for row in kept],
        )
        return ids

    def __len__(self) -> int:
        return self._count

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._rows

    def ids(self) -> set[int]:
        """The ids of the messages whose vectors it holds."""
        with self._lock:
            return set(self._rows)

    def newer_than(self, message_id: int) -> int:
        """How many indexed messages are newer than `message_id`."""
        with self._lock:
            return int(np.count_nonzero(self._ids[: self._count] > message_id))

    def add(
        self, ids: Sequence[int], vectors: Floats, conversations: Sequence[int] | None = None
    ) -> None:
        """Add vectors for `ids`, replacing those of ids already held (an edited message).
        `conversations`: the conversation of each, in an index of several."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(ids), self.dimensions):
            raise ValueError(
                f"Expected {len(ids)} vectors of {self.dimensions}, got shape {vectors.shape}."
            )
        if conversations is None:
            conversations = [0] * len(ids)
        elif len(conversations) != len(ids):
            raise ValueError(f"Expected {len(ids)} conversations, got {len(conversations)}.")
        with self._lock:
            self._previous = None
            if self._rows.keys().isdisjoint(ids) and len(set(ids)) == len(ids):
                # All new (loading from the store, a batch of new messages): copy at once.
                start = self._count
                self._ascending = self._ascending and _ascending_after(
                    ids, int(self._ids[start - 1]) if start else None
                )
                self._reserve(start + len(ids))
                self._vectors[start : start + len(ids)] = vectors
                self._ids[start : start + len(ids)] = ids
                self._conversations[start : start + len(ids)] = conversations
                self._rows.update(zip(ids, range(start, start + len(ids)), strict=True))
                self._count += len(ids)
                return
            self._reserve(self._count + len(ids))
            for k, message_id in enumerate(ids):
                row = self._rows.get(message_id)
                if row is None:
                    row = self._count
                    if row and message_id <= self._ids[row - 1]:
                        self._ascending = False
                    self._rows[message_id] = row
                    self._ids[row] = message_id
                    self._count += 1
                self._vectors[row] = vectors[k]
                self._conversations[row] = conversations[k]

    def discard(self, ids: Iterable[int]) -> None:
        """Forget the vectors of `ids` (deleted messages); unknown ids are ignored."""
        with self._lock:
            gone = {message_id for message_id in ids if message_id in self._rows}
            if not gone:
                return
            self._previous = None
            keep = ~np.isin(self._ids[: self._count], list(gone))
            kept_ids = self._ids[: self._count][keep]
            self._vectors[: len(kept_ids)] = self._vectors[: self._count][keep]
            self._ids[: len(kept_ids)] = kept_ids
            kept_conversations = self._conversations[: self._count][keep]
            self._conversations[: len(kept_ids)] = kept_conversations
            self._count = len(kept_ids)
            self._rows = {int(message_id): row for row, message_id in enumerate(kept_ids)}

    def vectors_of(self, message_ids: Sequence[int]) -> Floats:
        """The vectors of `message_ids` (all held), one row each, in that order."""
        with self._lock:
            return self._vectors[[self._rows[i] for i in message_ids]].copy()

    def search(
        self, query: Floats, limit: int, before_id: int | None = None
    ) -> list[tuple[int, float]]:
        """(message id, cosine) of the `limit` vectors nearest to `query`, best first (the
        newer message first between equals).

        Vectors and query are normalised, so the dot product is the cosine. `before_id`
        keeps only messages older than that one (ids grow with time).
        """
        query = np.asarray(query, dtype=np.float32).reshape(self.dimensions)
        with self._lock:
            if limit <= 0 or self._count == 0:
                return []
            ids, scores = self._scores(query, before_id)
            return [(int(ids[row]), float(scores[row])) for row in _best(ids, scores, limit)]

    def search_in_context(
        self, query: Floats, limit: int, before_id: int | None = None
    ) -> list[tuple[int, float, bool]]:
        """As `search`, each message also read with the message before it (the earlier at
        CONTEXT_WEIGHT): (message id, the better of the two cosines, whether it is the one
        read with the message before). The message before is the previous one held here of
        the same conversation."""
        query = np.asarray(query, dtype=np.float32).reshape(self.dimensions)
        with self._lock:
            if limit <= 0 or self._count == 0:
                return []
            ids, alone = self._scores(query, before_id)
            previous, between = self._previous_rows()
            previous, between = previous[: len(ids)], between[: len(ids)]
            has = (previous >= 0) & np.isfinite(alone)
            before = np.where(has, alone[np.maximum(previous, 0)], 0.0)
            weight = CONTEXT_WEIGHT
            length = np.sqrt(np.maximum(1.0 + weight * weight + 2.0 * weight * between, 1e-6))
            read = np.where(has, (alone + weight * before) / length, -np.inf)
            scores = np.maximum(alone, read)
            return [
                (int(ids[row]), float(scores[row]), bool(read[row] > alone[row]))
                for row in _best(ids, scores, limit)
            ]

    def _scores(self, query: Floats, before_id: int | None) -> tuple[npt.NDArray[np.int64], Floats]:
        """The ids of the rows searched and their cosines with `query` (−inf where
        `before_id` rules a row out); call holding the lock."""
        count = self._count
        if before_id is not None and self._ascending:
            count = int(np.searchsorted(self._ids[:count], before_id))
        ids = self._ids[:count]
        scores: Floats = self._vectors[:count] @ query
        if before_id is not None and not self._ascending:
            scores[ids >= before_id] = -np.inf
        return ids, scores

    def _previous_rows(self) -> tuple[npt.NDArray[np.int64], Floats]:
        """For each row, the row of the message before it in id order in its conversation
        (−1 for the first) and the cosine of the two; call holding the lock. Kept until the
        rows change."""
        if self._previous is None:
            count = self._count
            conversations = self._conversations[:count]
            order = (
                np.arange(count)
                if self._ascending and not conversations.any()
                else np.lexsort((self._ids[:count], conversations))
            )
            previous = np.full(count, -1, dtype=np.int64)
            same = conversations[order[1:]] == conversations[order[:-1]]
            previous[order[1:][same]] = order[:-1][same]
            between = np.zeros(count, dtype=np.float32)
            has = previous >= 0
            vectors = self._vectors[:count]
            between[has] = np.einsum("ij,ij->i", vectors[has], vectors[previous[has]])
            self._previous = (previous, between)
        return self._previous

    def _reserve(self, size: int) -> None:
        if size <= len(self._ids):
            return
        capacity = max(size, 2 * len(self._ids), 64)
        vectors = np.zeros((capacity, self.dimensions), dtype=np.float32)
        vectors[: self._count] = self._vectors[: self._count]
        ids = np.zeros(capacity, dtype=np.int64)
        ids[: self._count] = self._ids[: self._count]
        conversations = np.zeros(capacity, dtype=np.int64)
        conversations[: self._count] = self._conversations[: self._count]
        self._vectors, self._ids, self._conversations = vectors, ids, conversations


def _ascending_after(ids: Sequence[int], last: int | None) -> bool:
    """Whether `ids` ascend, each greater than `last`."""
    values = np.asarray(ids, dtype=np.int64)
    if len(values) and last is not None and values[0] <= last:
        return False
    return bool(np.all(values[1:] > values[:-1]))


def _best(ids: npt.NDArray[np.int64], scores: Floats, limit: int) -> list[int]:
    """The rows of the `limit` best `scores` (none of −inf), best first. Equal scores (the
    same text said twice) rank the newer message first, whatever order the vectors were
    added in: the same query gets the same answer in every process."""
    if len(scores) == 0:
        return []
    if limit < len(scores):
        top = np.argpartition(-scores, limit - 1)[:limit]
    else:
        top = np.arange(len(scores))
    top = top[np.lexsort((-ids[top], -scores[top]))]
    return [int(row) for row in top if scores[row] != -np.inf]
