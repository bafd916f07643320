"""A request for work the model does for ctxchat (a summary, an extraction): how much it may
hold (the window less the reply it asks for, with room for the chat template and for a
counter that only estimates), and whether its instructions may go in a system message."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession
from ctxchat.model.backend import ModelBackend

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


def system_role_reaches(session: ChatSession, backend: ModelBackend | None = None) -> bool:
    """Whether a system message reaches the model on `backend` (the session's own by
    default): not where the chat server's template is known to drop it. Another server (a
    summary profile's) is taken to keep it."""
    if backend is not None and backend is not session.backend:
        return True
    counts = session.server_counts
    if counts is not None:
        return not counts.template.drops_system
    facts = session.facts
    return not (facts is not None and facts.template_drops_system)
