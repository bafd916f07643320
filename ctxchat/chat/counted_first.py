"""Plans made once the server has counted what they hold: the app, `ctxchat send` and
`ctxchat context` plan the same message alike, by the same counts."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable

from ctxchat.chat.answering import Resend, last_question, plan_answer
from ctxchat.chat.rendered import render_request, request_key
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnEvent, regenerate, send_message
from ctxchat.core.plan import ContextPlan

COUNT_WAIT = 15.0
"""How long a plan waits for the server's tokenizer (seconds); then the estimate stands in."""
ROUNDS = 4
"""A plan fitted anew may hold texts (and be a request) the first was not."""


async def count_first(
    session: ChatSession,
    draft: str | None,
    wait: float = COUNT_WAIT,
    planner: Callable[[], ContextPlan] | None = None,
) -> None:
    """Have the server's tokenizer count every text the plan of `draft` holds that it has
    not counted yet, and the server render the request where it renders its template (its
    count of the rendering is exact), and wait for them (at most `wait` seconds a round):
    the plan made next is fitted by the server's own count, whichever process makes it.
    `planner` makes the plan instead, for a request that is not a send of `draft`."""
    for _ in range(ROUNDS):
        counts = session.server_counts
        backend = session.backend
        if counts is None or backend is None:
            return
        plan = planner() if planner is not None else session.plan(draft)
        missing = [m.content for m in plan.messages if counts.counted(m.content) is None]
        messages = plan.request_messages()
        rendered = not backend.renders or counts.rendering(request_key(messages)) is not None
        if (not missing and rendered) or counts.failure is not None:
            return
        if missing:
            session.server.count_texts(missing)
            try:
                await asyncio.wait_for(session.server.counted(), wait)
            except TimeoutError:
                return  # a tokenizer this slow is not waited for again: the estimate stands
        elif not (await _render(session, messages, wait)):
            return


def counted_already(session: ChatSession, plan: ContextPlan) -> bool:
    """Whether the server counted every text of `plan` (and rendered its request, where it
    renders): a plan made now is fitted and shown by its own count."""
    counts, backend = session.server_counts, session.backend
    if counts is None or backend is None or counts.failure is not None:
        return True
    if any(counts.counted(m.content) is None for m in plan.messages):
        return False
    return not backend.renders or counts.rendering(request_key(plan.request_messages())) is not None


async def _render(session: ChatSession, messages: list[dict[str, str]], wait: float) -> bool:
    """Whether the server rendered `messages` (and counted the rendering) within `wait`."""
    try:
        await asyncio.wait_for(render_request(session, messages), wait)
    except TimeoutError:
        return False
    counts = session.server_counts
    return counts is not None and counts.rendering(request_key(messages)) is not None


async def send_counted(session: ChatSession, text: str) -> AsyncGenerator[TurnEvent, None]:
    """`send_message`, planned once the server counted what the plan holds."""
    await count_first(session, text)
    async with contextlib.aclosing(send_message(session, text)) as events:
        async for event in events:
            yield event


async def regenerate_counted(
    session: ChatSession, why: Resend = Resend.REGENERATE
) -> AsyncGenerator[TurnEvent, None]:
    """`regenerate` (a retry, a regenerate, an edit sent again), planned once the server
    counted (and rendered) the request that answers the question again, as a send is."""
    try:
        question = last_question(session)
    except ValueError:
        pass  # nothing to answer: regenerate says so
    else:
        await count_first(session, None, planner=lambda: plan_answer(session, question, why))
    async with contextlib.aclosing(regenerate(session, why)) as events:
        async for event in events:
            yield event
