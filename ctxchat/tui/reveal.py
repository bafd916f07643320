"""Show one stored message of the open conversation, however far up it is."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession
from ctxchat.tui.widgets.conversation import ConversationView


async def reveal_message(session: ChatSession, view: ConversationView, message_id: int) -> bool:
    """Scroll `view` (showing `session`'s conversation) to `message_id` and select it,
    mounting it with the turns around it when it is far up. False when the conversation
    does not hold it."""
    conversation = session.conversation_id
    if conversation is None:
        return False
    position = session.store.search.message_position(conversation, message_id)
    return await view.reveal(message_id, position)
