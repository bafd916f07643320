"""Token counts by a model server's own tokenizer, kept per tokenizer beside tiktoken's."""

from __future__ import annotations

from collections.abc import Mapping

from ctxchat.store.database import Database


class ServerCounts:
    """Counts by tokenizer key (server kind, address and model) and text digest
    (`ctxchat.core.tokens.text_key`): the text itself is not stored again."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def server_counts(self, tokenizer: str) -> dict[bytes, int]:
        with self._db.reading() as conn:
            rows = conn.execute(
                "SELECT digest, tokens FROM server_counts WHERE tokenizer = ?", (tokenizer,)
            ).fetchall()
        return {bytes(digest): tokens for digest, tokens in rows}

    def keep_server_counts(self, tokenizer: str, counts: Mapping[bytes, int]) -> None:
        if not counts:
            return
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO server_counts (tokenizer, digest, tokens) VALUES (?, ?, ?)",
                [(tokenizer, digest, tokens) for digest, tokens in counts.items()],
            )
