"""Writing a database of an older schema as that version did: today's code writes columns
it lacked."""

from ctxchat.store import Store


def insert_message(store: Store, conversation_id: int, role: str, content: str) -> int:
    """A complete message with the columns every schema version has; returns its id."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO messages (conversation_id, role, content, tokens, exact, encoding, "
            "status, created_at, updated_at) VALUES (?, ?, ?, 1, 1, 'x', 'complete', 1, 1)",
            (conversation_id, role, content),
        )
    assert cursor.lastrowid is not None
    return cursor.lastrowid
