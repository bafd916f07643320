"""Kept token counts: texts every plan uses, counted once and remembered across runs."""

from __future__ import annotations

from collections.abc import Mapping

from ctxchat.store.database import Database

KEPT_COUNTS = 4096
"""How many counts are kept per encoding; the oldest go first (they are counted again)."""


class CountStore(Database):
    """Token counts by encoding and text digest (`ctxchat.core.tokens.text_key`).

    Counting the system prompt and the memory entries needs the tokenizer, which takes a
    few tenths of a second to load; with these counts kept, a start can draw its plan first.
    """

    def kept_counts(self, encoding: str) -> dict[bytes, int]:
        with self.reading() as conn:
            rows = conn.execute(
                "SELECT digest, tokens FROM kept_counts WHERE encoding = ?", (encoding,)
            ).fetchall()
        return {bytes(digest): tokens for digest, tokens in rows}

    def has_kept_counts(self, encoding: str) -> bool:
        with self.reading() as conn:
            row = conn.execute(
                "SELECT 1 FROM kept_counts WHERE encoding = ? LIMIT 1", (encoding,)
            ).fetchone()
        return row is not None

    def keep_counts(self, encoding: str, counts: Mapping[bytes, int]) -> None:
        """Keep `counts` (digest → tokens) of `encoding`, at most KEPT_COUNTS of them."""
        if not counts:
            return
        with self.transaction() as conn:
            conn.executemany(
                "INSERT INTO kept_counts (encoding, digest, tokens) VALUES (?, ?, ?) "
                "ON CONFLICT (encoding, digest) DO UPDATE SET tokens = excluded.tokens",
                [(encoding, digest, tokens) for digest, tokens in counts.items()],
            )
            conn.execute(
                "DELETE FROM kept_counts WHERE encoding = ? AND id <= "
                "(SELECT id FROM kept_counts WHERE encoding = ? ORDER BY id DESC "
                "LIMIT 1 OFFSET ?)",
                (encoding, encoding, KEPT_COUNTS),
            )
