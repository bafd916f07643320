"""Kept token counts: texts every plan uses, counted once and remembered across runs."""

from __future__ import annotations

from collections.abc import Mapping

from ctxchat.store.database import Database

KEPT_COUNTS = 4096
"""How many counts are kept per encoding; the least recently kept go first (they are
counted again when next needed)."""

KEEP_WAIT_MS = 50
"""How long keeping counts waits for another process's write to end."""


class KeptCounts:
    """Token counts by encoding and text digest (`ctxchat.core.tokens.text_key`).

    Counting the system prompt and the memory entries needs the tokenizer, which takes a
    few tenths of a second to load; with these counts kept, a start can draw its plan first.
    """

    def __init__(self, db: Database) -> None:
        self._db = db

    def kept_counts(self, encoding: str) -> dict[bytes, int]:
        with self._db.reading() as conn:
            rows = conn.execute(
                "SELECT digest, tokens FROM kept_counts WHERE encoding = ?", (encoding,)
            ).fetchall()
        return {bytes(digest): tokens for digest, tokens in rows}

    def has_kept_counts(self, encoding: str) -> bool:
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT 1 FROM kept_counts WHERE encoding = ? LIMIT 1", (encoding,)
            ).fetchone()
        return row is not None

    def keep_counts(self, encoding: str, counts: Mapping[bytes, int]) -> None:
        """Keep `counts` (digest → tokens) of `encoding`, at most KEPT_COUNTS of them.

        It is called as the app plans, so it waits only briefly for another process's
        write (StoreError when that is not enough): the counts are only a saving.
        """
        if not counts:
            return
        with self._db.waiting_briefly(KEEP_WAIT_MS), self._db.transaction() as conn:
            # `used` grows with each write: a count kept again is as new as one kept first.
            (used,) = conn.execute(
                "SELECT coalesce(max(used), 0) + 1 FROM kept_counts WHERE encoding = ?",
                (encoding,),
            ).fetchone()
            conn.executemany(
                "INSERT INTO kept_counts (encoding, digest, tokens, used) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (encoding, digest) DO UPDATE "
                "SET tokens = excluded.tokens, used = excluded.used",
                [(encoding, digest, tokens, used) for digest, tokens in counts.items()],
            )
            conn.execute(
                "DELETE FROM kept_counts WHERE encoding = ? AND id IN "
                "(SELECT id FROM kept_counts WHERE encoding = ? ORDER BY used DESC, id DESC "
                "LIMIT -1 OFFSET ?)",
                (encoding, encoding, KEPT_COUNTS),
            )
