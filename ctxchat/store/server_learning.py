"""What requests taught about a server and model, kept for every process and run."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.store.database import Database


@dataclass(frozen=True, slots=True)
class LearnedServer:
    """What a server counted beyond ctxchat's estimate, and a window a refusal named."""

    undercount: float = 1.0
    """The largest ratio of the server's count to ctxchat's estimate seen (1: none)."""
    gap: int = 0
    """The largest number of tokens the server counted beyond ctxchat's estimate."""
    window: int | None = None
    """The window a refusal named (None: none did)."""
    window_note: str = ""
    """What was told when that window was learned."""


class ServerLearning:
    """`LearnedServer` by server key ("<base URL> <model>")."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def server_learning(self, server: str) -> LearnedServer | None:
        with self._db.reading() as conn:
            row = conn.execute(
                "SELECT undercount, gap, window, window_note FROM server_learning WHERE server = ?",
                (server,),
            ).fetchone()
        if row is None:
            return None
        undercount, gap, window, note = row
        return LearnedServer(float(undercount), int(gap), window, note or "")

    def keep_server_learning(self, server: str, learned: LearnedServer) -> LearnedServer:
        """Keep `learned`, merged with what another process kept meanwhile (the larger
        ratio and gap; the newer window); returns what is kept now."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT undercount, gap FROM server_learning WHERE server = ?", (server,)
            ).fetchone()
            undercount, gap = learned.undercount, learned.gap
            if row is not None:
                undercount, gap = max(undercount, float(row[0])), max(gap, int(row[1]))
            conn.execute(
                "INSERT OR REPLACE INTO server_learning "
                "(server, undercount, gap, window, window_note, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (server, undercount, gap, learned.window, learned.window_note, self._db.now()),
            )
        return LearnedServer(undercount, gap, learned.window, learned.window_note)
