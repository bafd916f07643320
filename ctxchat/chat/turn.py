"""One turn: store the user's message, send exactly the plan, save the reply as it streams."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from ctxchat.chat.answering import Resend, last_question, plan_answer
from ctxchat.chat.costs import billing_for
from ctxchat.chat.session import ChatSession, OverBudget
from ctxchat.core.history import MessageStatus
from ctxchat.core.plan import ContextPlan, PlanStatus
from ctxchat.model.backend import StreamChunk, Usage
from ctxchat.model.errors import ErrorKind, ProviderError, describe_finish, redact, stopped_by_user
from ctxchat.model.request import ChatRequest
from ctxchat.store import ReplyEnding, ReplyWriter, StoredMessage


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """The user's message is stored and the request is on its way."""

    user_message: StoredMessage | None
    reply_id: int
    plan: ContextPlan
    kept: tuple[int, ...] = ()
    """The variants the replaced replies became (regenerate), newest last."""


@dataclass(frozen=True, slots=True)
class ReplyDelta:
    text: str
    reasoning: str = ""


@dataclass(frozen=True, slots=True)
class TurnRetried:
    """The server refused the plan as too long and named its window: the reply so far was
    dropped, and the turn starts again (a new `TurnStarted`) planned with that window."""

    error: ProviderError
    window: int


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The reply arrived whole; `notice` says if the output limit cut it."""

    reply: StoredMessage
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class TurnFailed:
    """The server failed; the reply (if any text came) is stored interrupted or failed."""

    reply: StoredMessage
    error: ProviderError


TurnEvent = TurnStarted | ReplyDelta | TurnRetried | TurnFinished | TurnFailed


class NoBackend(Exception):
    """The session has no model server to talk to."""


async def send_message(session: ChatSession, text: str) -> AsyncGenerator[TurnEvent, None]:
    """Send `text` as the next user message and stream the reply.

    An input that cannot fit raises OverBudget before anything is stored. Otherwise the
    user's message is stored first, so no failure can lose it.
    """
    if session.backend is None:
        raise NoBackend("No model server is configured.")
    plan = session.plan(text)
    if plan.status is PlanStatus.OVER_BUDGET:
        raise OverBudget(plan)
    user_message = session.add_user_message(text)
    # Closed with this generator, not whenever it is collected: closing marks the reply.
    events_of = _stream(session, _begin(session, plan), user_message, answering=user_message.id)
    async with contextlib.aclosing(events_of) as events:
        async for event in events:
            yield event


async def regenerate(
    session: ChatSession, why: Resend = Resend.REGENERATE
) -> AsyncGenerator[TurnEvent, None]:
    """Answer the last user message again (retry after a failure, regenerate, an edit).

    The replies after the last user message are replaced; each one that holds something
    is kept as a variant of the new reply (`TurnStarted.kept` names them), in the same
    commit that removes it. The request is planned as a send of that message would be
    (recall included: `plan_answer`), its notes saying `why`. A plan that cannot fit
    changes nothing.
    """
    if session.backend is None:
        raise NoBackend("No model server is configured.")
    history = session.history()
    last_user = last_question(session)
    store = session.store
    try:
        with store.transaction():
            former = store.variants.replies_after(session.stored_id, last_user.id)
            if history[-1].id != last_user.id:
                session.delete_after(last_user.id)
            plan = plan_answer(session, last_user, why)
            if plan.status is PlanStatus.OVER_BUDGET:
                raise OverBudget(plan)
            begun = _begin(session, plan)
            kept = store.variants.keep_former_replies(begun.writer.message_id, former)
    except BaseException:
        session.invalidate()  # it read the replies the rollback brought back
        raise
    begun = dataclasses.replace(begun, kept=tuple(variant.id for variant in kept))
    async with contextlib.aclosing(_stream(session, begun, None, answering=last_user.id)) as events:
        async for event in events:
            yield event


@dataclass(frozen=True, slots=True)
class _Begun:
    """A reply started in the store, with the request about to be sent for it."""

    request: ChatRequest
    plan: ContextPlan
    writer: ReplyWriter
    kept: tuple[int, ...] = ()


def _begin(session: ChatSession, plan: ContextPlan) -> _Begun:
    """Build the request for `plan` and start its reply in the store, the plan saved with
    it before the first token, so even a crash keeps what was sent."""
    request = session.request_for(plan)
    plan = dataclasses.replace(plan, request=request.shown())
    writer = ReplyWriter.start(
        session.store.replies,
        session.stored_id,
        model=session.model,
        estimated_prompt_tokens=plan.tokens,
    )
    session.store.plans.save_plan(writer.message_id, plan)
    session.cache.remember_request(plan)
    return _Begun(request, plan, writer)


async def _stream(
    session: ChatSession,
    begun: _Begun,
    user_message: StoredMessage | None,
    *,
    answering: int,
    may_retry: bool = True,
) -> AsyncGenerator[TurnEvent, None]:
    """Send the begun reply's request and stream the reply to message `answering`.

    Refused as too long before any text, with a window the plan did not use, the turn is
    planned again with that window and sent once more: the user's message stays as it is.
    """
    backend = session.backend
    assert backend is not None
    request, plan, writer = begun.request, begun.plan, begun.writer
    # The request goes out before the new turn is drawn: the server starts answering while
    # the screen catches up.
    stream = _EarlyStream(backend.stream_request(request))
    usage: Usage | None = None
    finish: str | None = None
    retried: ProviderError | None = None
    session.count_with_server(plan)
    asked_usage = False
    try:
        yield TurnStarted(user_message, writer.message_id, plan, begun.kept)
        async for chunk in stream:
            if not asked_usage and "stream_options" in request.body:
                asked_usage = True
                _keep_what_was_sent(session, writer.message_id, plan, request)
            if chunk.text or chunk.reasoning:
                writer.append(chunk.text, chunk.reasoning)
                yield ReplyDelta(chunk.text, chunk.reasoning)
            usage = chunk.usage or usage
            finish = chunk.finish_reason or finish
    except ProviderError as error:
        learned = learn_window(session, error, plan)
        reply = _close(session, writer, usage, finish, error)
        if not (
            may_retry
            and learned
            and error.kind is ErrorKind.CONTEXT_OVERFLOW
            and not reply.content
            and session.budget.total < plan.total_budget
        ):
            yield TurnFailed(reply, error)
            return
        retried = error
    except (asyncio.CancelledError, GeneratorExit):
        # Stopped by the user: keep what arrived, marked interrupted.
        _close(session, writer, usage, finish, stopped_by_user(writer.content))
        raise
    finally:
        with contextlib.suppress(Exception):
            await stream.aclose()
    session.server.saw_served_model(backend.served_model(session.model))
    session.server.saw_usage(plan, usage.prompt_tokens if usage else None)
    if retried is None:
        reply = _close(session, writer, usage, finish, None)
        session.server.count_texts([reply.content])  # the next plan sends it
        session.talk.render_with_server()
        yield TurnFinished(reply, describe_finish(finish))
        return
    # The refused reply leaves; the turn starts again as a retry does.
    session.delete_after(answering)
    again = plan_answer(session, last_question(session), Resend.OVERFLOW)
    if again.status is PlanStatus.OVER_BUDGET:
        raise OverBudget(again)
    yield TurnRetried(retried, session.window.context_window)
    async with contextlib.aclosing(
        _stream(session, _begin(session, again), None, answering=answering, may_retry=False)
    ) as events:
        async for event in events:
            yield event


def learn_window(session: ChatSession, error: ProviderError, plan: ContextPlan) -> bool:
    """Plan with what a refusal told from now on: the window the server named, and how
    much more than ctxchat's estimate it counted `plan` (its `n_prompt_tokens`); True if
    the next plan is fitted to less because of it.

    A window set in the config stays the user's choice (the difference in counts still
    applies). A window smaller than the one the server gave before is noted: it was
    restarted with less.
    """
    before = session.server.undercount
    session.server.saw_count(plan.tokens, error.prompt_tokens)
    learned = session.server.undercount > before
    window = error.context_window
    if window and not session.settings.context_window(session.profile):
        session.server.learn_window(window)
        learned = True
    return learned


def _keep_what_was_sent(
    session: ChatSession, message_id: int, plan: ContextPlan, request: ChatRequest
) -> None:
    """A server that refused `stream_options` was sent the body again without it: the
    stored plan then shows that body, the one the reply came from."""
    if session.backend is None or session.backend.sends_usage_option:
        return
    body = {name: value for name, value in request.body.items() if name != "stream_options"}
    sent = dataclasses.replace(request, body=body)
    session.store.plans.save_plan(message_id, dataclasses.replace(plan, request=sent.shown()))


class _EarlyStream:
    """A reply's chunks, whose first step (sending the request, reading the first chunk) runs
    at once in a task of its own instead of when the first chunk is asked for."""

    def __init__(self, chunks: AsyncIterator[StreamChunk]) -> None:
        self._chunks = chunks
        self._first: asyncio.Task[StreamChunk | None] | None = asyncio.ensure_future(self._step())

    async def _step(self) -> StreamChunk | None:
        # A task cannot end in StopAsyncIteration; None stands for it.
        return await anext(self._chunks, None)

    def __aiter__(self) -> _EarlyStream:
        return self

    async def __anext__(self) -> StreamChunk:
        first, self._first = self._first, None
        # Awaiting the task also cancels it if the turn is stopped meanwhile.
        chunk = await (first if first is not None else self._step())
        if chunk is None:
            raise StopAsyncIteration
        return chunk

    async def aclose(self) -> None:
        first, self._first = self._first, None
        if first is not None:
            # Stopped before the first chunk was asked for: the request is called off.
            first.cancel()
            with contextlib.suppress(BaseException):
                await first
        await self._chunks.aclose()  # type: ignore[attr-defined]


def _close(
    session: ChatSession,
    writer: ReplyWriter,
    usage: Usage | None,
    finish: str | None,
    error: ProviderError | None,
) -> StoredMessage:
    ending = answer_ending(session, writer.content, writer.reasoning, usage, finish, error)
    message = writer.close(ending)
    session.remember_message(message)
    return message


def answer_ending(
    session: ChatSession,
    content: str,
    reasoning: str,
    usage: Usage | None,
    finish: str | None,
    error: ProviderError | None,
) -> ReplyEnding:
    """How a streamed answer ended, as a reply or a variant of one is finished with: its
    text, status (complete, interrupted with some text or by the user, else failed), count,
    the server's usage and the error (redacted)."""
    if error is None:
        status = MessageStatus.COMPLETE
    elif content.strip() or error.kind is ErrorKind.CANCELLED:
        status = MessageStatus.INTERRUPTED
    else:
        status = MessageStatus.FAILED
    return ReplyEnding(
        content=content,
        reasoning=reasoning,
        status=status,
        tokens=session.count("assistant", content),
        exact=session.counter.exact,
        encoding=session.counter.name,
        finish_reason=finish if error is None else (finish or error.kind.value),
        prompt_tokens=usage.prompt_tokens if usage else None,
        completion_tokens=usage.completion_tokens if usage else None,
        cached_tokens=usage.cached_tokens if usage else None,
        error=None if error is None else redact(_error_line(error), session.secrets),
        error_detail=redact(error.detail, session.secrets) if error and error.detail else None,
        billing=billing_for(session.profile).value,
    )


def _error_line(error: ProviderError) -> str:
    # A stop by the user needs no advice beside the reply; every other error keeps its action.
    return error.message if error.kind is ErrorKind.CANCELLED else str(error)
