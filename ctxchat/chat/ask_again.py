"""Ask a reply's request again with a change (or replay it exactly) and store the answer as a
variant of the reply: built by the one request builder, streamed, kept beside the reply."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import difflib
import json
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from typing import Any

from ctxchat.chat.answering import with_note
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import NoBackend, ReplyDelta, answer_ending
from ctxchat.core.counterfactual import Change, CounterfactualError, counterfactual_plan
from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import render_entry
from ctxchat.core.plan import ContextPlan, Reason
from ctxchat.model.backend import Usage
from ctxchat.model.errors import (
    ProviderError,
    describe_finish,
    stopped_by_user,
)
from ctxchat.model.request import ChatRequest, build_chat_request
from ctxchat.store import ReplyVariant, Store, StoredMessage

__all__ = [
    "AskAgainError",
    "Comparison",
    "PreparedVariant",
    "VariantFailed",
    "VariantFinished",
    "VariantStarted",
    "ask_again",
    "prepare_variant",
    "request_diff",
    "stored_comparison",
]


class AskAgainError(ValueError):
    """The reply cannot be asked again as asked; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class PreparedVariant:
    """A variant ready to send: the reply, its stored plan, and the changed plan and request."""

    reply: StoredMessage
    original: ContextPlan
    plan: ContextPlan
    request: ChatRequest
    change: Change

    def diff_base(self) -> Mapping[str, Any]:
        """The body the reply was sent with: what the variant's is compared to."""
        return original_body(self.original, self.request)

    def diff(self) -> list[str]:
        """The request diff between the reply's request and the variant's."""
        return request_diff(self.diff_base(), self.request.body)

    def comparison(self) -> Comparison:
        """What the side-by-side view shows of it."""
        return Comparison(
            self.reply,
            self.original,
            self.plan,
            self.request.body,
            self.diff_base(),
            self.change.describe(),
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    """A reply beside a variant of it: the variant's plan and request body, and the body of
    the reply's request it is compared to (empty when no request was stored)."""

    reply: StoredMessage
    original: ContextPlan | None
    plan: ContextPlan | None
    body: Mapping[str, Any]
    base: Mapping[str, Any]
    change: str

    def diff(self) -> list[str]:
        """The request diff between the reply's request and the variant's."""
        if not self.body or not self.base:
            return []
        return request_diff(self.base, self.body)


def stored_comparison(store: Store, variant: ReplyVariant) -> Comparison:
    """A stored variant beside its reply, as the side-by-side view shows it."""
    reply = store.messages.get_message(variant.reply_id)
    original = store.plans.load_plan(reply.id)
    plan = store.variants.load_variant_plan(variant.id)
    return Comparison(
        reply, original, plan, _stored_body(plan), _stored_body(original), variant.change
    )


def _stored_body(plan: ContextPlan | None) -> Mapping[str, Any]:
    """The body a stored plan went out as (only its messages for plans stored before
    requests were kept; nothing without a plan)."""
    if plan is None:
        return {}
    if plan.request is not None and isinstance(plan.request.get("body"), Mapping):
        body: Mapping[str, Any] = plan.request["body"]
        return body
    return {"messages": plan.request_messages()}


@dataclass(frozen=True, slots=True)
class VariantStarted:
    variant_id: int
    plan: ContextPlan


@dataclass(frozen=True, slots=True)
class VariantFinished:
    variant: ReplyVariant
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class VariantFailed:
    variant: ReplyVariant
    error: ProviderError


VariantEvent = VariantStarted | ReplyDelta | VariantFinished | VariantFailed


def original_body(plan: ContextPlan, request: ChatRequest) -> Mapping[str, Any]:
    """The body the reply was sent with (plans stored before requests were kept: the
    variant's body with the reply's messages)."""
    if plan.request is not None and isinstance(plan.request.get("body"), Mapping):
        body: Mapping[str, Any] = plan.request["body"]
        return body
    return {**request.body, "messages": plan.request_messages()}


def request_diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """A unified diff of two request bodies as pretty JSON (empty when they are the same)."""
    return list(
        difflib.unified_diff(
            json.dumps(before, indent=2, ensure_ascii=False).splitlines(),
            json.dumps(after, indent=2, ensure_ascii=False).splitlines(),
            "the reply's request",
            "the variant's request",
            lineterm="",
        )
    )


def prepare_variant(session: ChatSession, reply_id: int, change: Change) -> PreparedVariant:
    """The variant of `reply_id` that `change` asks for, with the request `session` sends.

    `session` is opened on the reply's conversation with the profile and model to ask
    (the same as the reply's unless the change names others). Raises AskAgainError and
    NotFound.
    """
    store = session.store
    reply = store.messages.get_message(reply_id)
    if reply.role != "assistant":
        raise AskAgainError(f"message {reply_id} is not a reply; ask again from a reply")
    if reply.status is MessageStatus.STREAMING:
        raise AskAgainError(f"reply {reply_id} is still streaming")
    original = store.plans.load_plan(reply_id)
    if original is None:
        raise AskAgainError(f"reply {reply_id} has no stored plan, so its request is unknown")
    if change.mode is not None and change.mode.value == original.mode:
        change = dataclasses.replace(change, mode=None)  # the reply's own mode: no change
    model = change.model or (session.model if change.profile or not reply.model else reply.model)
    if change.replay:
        request = replay_request(session, original, model)
        plan = original
    else:
        try:
            plan = counterfactual_plan(
                original,
                change,
                counter=session.counter,
                memory_lines=_mode_lines(session, original),
            )
        except CounterfactualError as error:
            raise AskAgainError(str(error)) from None
        request = session.request_for(plan, model=model)
    plan = with_note(dataclasses.replace(plan, request=request.shown()), kept_note(change))
    return PreparedVariant(reply, original, plan, request, change)


def kept_note(change: Change) -> str:
    """What a variant keeps of the reply's request and plans anew (nothing: it is the
    request as sent, recall included, with the one change)."""
    if change.replay:
        return "replay: keeps the reply's request exactly as it was sent; nothing planned anew"
    return (
        "ask again: keeps the reply's request as it was sent (every layer, recall included) "
        f"but for one change, {change.describe()}; nothing planned anew"
    )


def replay_request(session: ChatSession, original: ContextPlan, model: str) -> ChatRequest:
    """The stored request built again by the one builder: the same messages, limit and
    sampling, `model` in place of the stored one."""
    stored = original.request.get("body") if original.request is not None else None
    if not isinstance(stored, Mapping):
        stored = {"messages": original.request_messages()}
    limit = stored.get("max_tokens", stored.get("max_completion_tokens", original.output_reserve))
    backend = session.backend
    return build_chat_request(
        base_url=session.profile.base_url,
        model=model,
        messages=stored["messages"],
        max_tokens=limit,
        temperature=stored.get("temperature"),
        top_p=stored.get("top_p"),
        stream=True,
        stream_usage=True if backend is None else backend.sends_usage_option,
        api_key=_api_key(session),
        headers=session.profile.headers,
    )


def _api_key(session: ChatSession) -> str | None:
    from ctxchat.config.errors import MissingApiKey

    try:
        return session.profile.resolve_api_key(session.env)
    except MissingApiKey:
        return None


def _mode_lines(session: ChatSession, plan: ContextPlan) -> dict[str, str]:
    """The memory lines of the entries objective mode left out of `plan`, as they read now."""
    wanted = {o.ref for layer in plan.layers for o in layer.left_out if o.reason is Reason.MODE}
    if not wanted:
        return {}
    dates = session.planning.memory_dates()
    return {e.ref: render_entry(e, dates) for e in session.memory() if e.ref in wanted}


async def ask_again(
    session: ChatSession, prepared: PreparedVariant
) -> AsyncGenerator[VariantEvent, None]:
    """Send the prepared variant and stream its answer; it is stored as a variant of the
    reply (started before the first token, finished or interrupted at the end)."""
    backend = session.backend
    if backend is None:
        raise NoBackend("No model server is configured.")
    store = session.store
    variant = store.variants.start_variant(
        prepared.reply.id,
        change=prepared.change.describe(),
        model=str(prepared.request.body.get("model") or session.model),
        plan=prepared.plan,
    )
    parts: list[str] = []
    reasoning: list[str] = []
    usage: Usage | None = None
    finish: str | None = None
    chunks = backend.stream_request(prepared.request)
    try:
        yield VariantStarted(variant.id, prepared.plan)
        async for chunk in chunks:
            if chunk.text or chunk.reasoning:
                parts.append(chunk.text)
                reasoning.append(chunk.reasoning)
                yield ReplyDelta(chunk.text, chunk.reasoning)
            usage = chunk.usage or usage
            finish = chunk.finish_reason or finish
    except ProviderError as error:
        done = _finish(session, variant.id, parts, reasoning, usage, finish, error)
        yield VariantFailed(done, error)
        return
    except (asyncio.CancelledError, GeneratorExit):
        _finish(
            session, variant.id, parts, reasoning, usage, finish, stopped_by_user("".join(parts))
        )
        raise
    finally:
        with contextlib.suppress(Exception):
            await chunks.aclose()  # type: ignore[attr-defined]
    done = _finish(session, variant.id, parts, reasoning, usage, finish, None)
    yield VariantFinished(done, describe_finish(finish))


def _finish(
    session: ChatSession,
    variant_id: int,
    parts: list[str],
    reasoning: list[str],
    usage: Usage | None,
    finish: str | None,
    error: ProviderError | None,
) -> ReplyVariant:
    ending = answer_ending(session, "".join(parts), "".join(reasoning), usage, finish, error)
    return session.store.variants.finish_variant(variant_id, ending)
