"""Editing a sent message: replace the later turns, or keep them and go on in a branch."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession


def replace_from(session: ChatSession, message_id: int, text: str) -> None:
    """Rewrite message `message_id` and drop every turn after it (they are deleted)."""
    message = session.store.messages.get_message(message_id)
    if message.role != "user":
        raise ValueError("Only your own messages can be edited and sent again.")
    session.edit_message(message_id, text)
    session.delete_after(message_id)


def branch_from(session: ChatSession, message_id: int, text: str) -> int:
    """A new conversation holding the turns before `message_id`, then `text` in its place,
    and the summary that covers the copied turns (see `Branches.branch_conversation`). The
    original conversation is left whole; returns the branch's id."""
    edited = session.store.messages.get_message(message_id)
    if edited.role != "user" or edited.conversation_id != session.stored_id:
        raise ValueError("Only your own messages can be edited and sent again.")
    return session.writer.branch_at(message_id, text)
