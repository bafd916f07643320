"""How much one request to the model may hold: the window less the reply it asks for, with
room for the chat template and for a counter that only estimates."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession

TEMPLATE_ROOM = 64
"""Tokens kept free in every request for the chat template's own tokens around messages."""
ESTIMATE_MARGIN = 1.15
"""Where the counter only estimates, the server may count this much more."""


def request_room(session: ChatSession, reply_tokens: int) -> int:
    """Tokens (as the session counts them) a request may hold with a reply of up to
    `reply_tokens`, in the session's window (raises BudgetError for a window that cannot
    work)."""
    room = session.budget.context_window - reply_tokens - TEMPLATE_ROOM
    if not session.counter.exact:
        room = int(room / ESTIMATE_MARGIN)
    return room
