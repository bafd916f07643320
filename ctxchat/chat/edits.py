"""Editing a sent message: replace the later turns, or keep them and go on in a branch."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession
from ctxchat.core.history import MessageStatus


def replace_from(session: ChatSession, message_id: int, text: str) -> None:
    """Rewrite message `message_id` and drop every turn after it (they are deleted)."""
    message = session.store.get_message(message_id)
    if message.role != "user":
        raise ValueError("Only your own messages can be edited and sent again.")
    session.edit_message(message_id, text)
    session.delete_after(message_id)


def branch_from(session: ChatSession, message_id: int, text: str) -> int:
    """A new conversation holding the turns before `message_id`, then `text` in its place.

    The original conversation is left whole; returns the branch's id.
    """
    store = session.store
    original = store.get_conversation(session.conversation)
    edited = store.get_message(message_id)
    if edited.role != "user" or edited.conversation_id != original.id:
        raise ValueError("Only your own messages can be edited and sent again.")
    title = f"{original.title or 'Conversation'} (branch)"
    branch = store.create_conversation(title, model=original.model, profile=original.profile)
    with store.transaction():
        for message in store.messages(original.id):
            if message.id >= message_id:
                break
            if message.status is MessageStatus.STREAMING:
                continue
            store.add_message(
                branch.id,
                message.role,
                message.content,
                tokens=message.tokens,
                exact=message.exact,
                encoding=message.encoding,
                model=message.model,
                status=message.status,
            )
        store.add_message(
            branch.id,
            "user",
            text,
            tokens=session.count("user", text),
            exact=session.counter.exact,
            encoding=session.counter.name,
            model=session.model,
        )
    return branch.id
