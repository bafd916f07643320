"""Stored messages as the conversation pane shows them, and the pane's loader of a conversation."""

from __future__ import annotations

from ctxchat.chat.costs import message_cost, usage_of
from ctxchat.chat.session import ChatSession
from ctxchat.config.settings import Settings
from ctxchat.core.prices import CostStatus
from ctxchat.core.tokens import TokenCounter
from ctxchat.store import StoredMessage
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.conversation import Loader


def cost_words(message: StoredMessage, settings: Settings) -> str:
    """What a reply cost, as its header says it: an amount, or "free (local server)"; ""
    for a message that is not a reply, and for a price nobody gave."""
    if message.role != "assistant" or message.billing is None:
        return ""
    cost = message_cost(settings, usage_of(message))
    return "" if cost.status is CostStatus.UNKNOWN else cost.text()


def message_view(
    message: StoredMessage,
    counter: TokenCounter | None = None,
    settings: Settings | None = None,
    limit: str = "",
) -> MessageView:
    """How the pane shows a stored message; `counter` counts its reasoning, if any,
    `settings` price a reply, and `limit` names the setting of the output limit."""
    reasoning_tokens = counter.count_text(message.reasoning) if counter and message.reasoning else 0
    return MessageView(
        id=message.id,
        role=message.role,
        content=message.content,
        status=message.status,
        error=message.error or "",
        model=message.model or "",
        tokens=message.tokens,
        reasoning=message.reasoning,
        reasoning_tokens=reasoning_tokens,
        cut=message.finish_reason == "length",
        excluded=message.excluded,
        cost="" if settings is None else cost_words(message, settings),
        limit=limit if message.finish_reason == "length" else "",
    )


def output_limit_setting(session: ChatSession) -> str:
    """The setting that sets the reply's limit in `session` (a preset's max_output_tokens,
    the profile's output_reserve, ...): what a reply cut at it tells to raise."""
    return session.settings.reserve_setting(session.profile, session.preset)


def session_message_view(message: StoredMessage, session: ChatSession) -> MessageView:
    """How the pane shows a stored message of `session`'s conversation."""
    return message_view(message, session.counter, session.settings, output_limit_setting(session))


def stored_loader(session: ChatSession) -> Loader:
    """The pane's loader of `session`'s conversation: a page of its stored messages."""
    store, conversation = session.store, session.stored_id

    def load(offset: int, limit: int) -> list[MessageView]:
        messages = store.messages.messages(conversation, offset=offset, limit=limit)
        # The reasoning's counts are kept too: a start that shows a reasoning reply
        # then draws it without waiting for the tokenizer.
        with session.counting.keeping():
            setting = output_limit_setting(session)
            return [message_view(m, session.counter, session.settings, setting) for m in messages]

    return load
