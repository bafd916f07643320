"""Token counts by a model server's own tokenizer, kept per tokenizer beside tiktoken's."""

from __future__ import annotations

from collections.abc import Mapping

from ctxchat.store.database import Database


class ServerCountStore(Database):
    """Counts by tokenizer key (server kind, address and model) and text digest
    (`ctxchat.core.tokens.text_key`): the text itself is not stored again."""

    def server_counts(self, tokenizer: str) -> dict[bytes, int]:
        with self.reading() as conn:
            rows = conn.execute(
                "SELECT digest, tokens FROM server_counts WHERE tokenizer = ?", (tokenizer,)
            ).fetchall()
        return {bytes(digest): tokens for digest, tokens in rows}

    def keep_server_counts(self, tokenizer: str, counts: Mapping[bytes, int]) -> None:
        if not counts:
            return
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO server_counts (tokenizer, digest, tokens) VALUES (?, ?, ?)",
                [(tokenizer, digest, tokens) for digest, tokens in counts.items()],
            )
