"""Planning a request that answers a stored message again (regenerate, retry, an edit sent
again) exactly as a send of that message would be planned, and saying what it keeps."""

from __future__ import annotations

import dataclasses
from enum import StrEnum

from ctxchat.chat.session import ChatSession
from ctxchat.core.budget import Layer
from ctxchat.core.history import HistoryMessage
from ctxchat.core.plan import ContextPlan


class Resend(StrEnum):
    """Why a stored message is answered again: each keeps something else of the original."""

    REGENERATE = "regenerate"
    RETRY = "retry"
    EDIT = "edit"
    BRANCH = "branch"
    OVERFLOW = "overflow"

    def keeps(self, message_id: int) -> str:
        """What is kept from the original request, and what is planned anew, in one line."""
        anew = "memory, summary, task, files, recall and working memory planned anew as for a new message"
        match self:
            case Resend.EDIT:
                kept = f"your edited message #{message_id} (the replies after it were replaced)"
            case Resend.BRANCH:
                kept = f"your edited message #{message_id}, in a branch of the turns before it"
            case Resend.OVERFLOW:
                kept = f"your message #{message_id}, planned again for the window the server named"
            case Resend.RETRY:
                kept = f"your message #{message_id} as it was (the failed reply is kept)"
            case _:
                kept = f"your message #{message_id} as it was (the reply is kept as a variant)"
        return f"{self.value}: keeps {kept}; {anew}"


def last_question(session: ChatSession) -> HistoryMessage:
    """The newest user message of the conversation: the one a regenerate answers."""
    found = next((m for m in reversed(session.history()) if m.role == "user"), None)
    if found is None:
        raise ValueError("There is no message to answer yet.")
    return found


def plan_answer(session: ChatSession, question: HistoryMessage, why: Resend) -> ContextPlan:
    """The plan of a request answering `question` again: the history before it, and its
    text as the new input, so recall searches for it and every layer is chosen as a send
    of it would choose; the input layer's notes say what was kept (`Resend.keeps`)."""
    return plan_edit(session, question.id, question.content, why)


def plan_edit(session: ChatSession, message_id: int, text: str, why: Resend) -> ContextPlan:
    """The plan of a request sending `text` in place of message `message_id` (the history
    before it, `text` as the input), its notes saying what it keeps (`why`)."""
    return with_note(session.plan(text, before=message_id), why.keeps(message_id))


def with_note(plan: ContextPlan, note: str) -> ContextPlan:
    """`plan` with `note` among its input layer's notes (what a re-sent request kept)."""
    layers = tuple(
        dataclasses.replace(layer, notes=(*layer.notes, note))
        if layer.layer is Layer.INPUT
        else layer
        for layer in plan.layers
    )
    return dataclasses.replace(plan, layers=layers)
