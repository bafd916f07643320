"""`ctxchat context`: the plan the next request would send, as a table or JSON."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group
from rich.text import Text

from ctxchat.chat.counted_first import count_first
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.reachability import unreachable_notice
from ctxchat.chat.rendered import OFFLINE, NotRendered, RenderedRequest, render_request
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import (
    EMBEDDING_WAIT,
    Connect,
    learn_server,
    prepare_recall,
    unembedded_notice,
)
from ctxchat.chat.workspace import Workspace
from ctxchat.cli.common import conversation_id, make_session, print_json, run_async, workspace
from ctxchat.cli.output import warn
from ctxchat.cli.tables import cell, console, table
from ctxchat.core.budget import Layer
from ctxchat.core.figure_words import figure_words, room_words, share_words
from ctxchat.core.plan import ContextPlan, PlanStatus
from ctxchat.model.request import Sampling

# How long `context` waits for a server's tokenizer to count what the plan holds.
SERVER_COUNT_WAIT = 15.0
NOT_ASKED = NotRendered("Not asked for.")


def show_context(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        conversation = conversation_id(space, options)
        session = make_session(space, options, conversation, connect=Connect.TRY)
        prepared = prepare_recall(
            session, args.message, wait=None if args.embed_all else EMBEDDING_WAIT
        )
        if prepared.left:
            warn(unembedded_notice(prepared.left))
        note = prepared.timing_note()
        if note and not args.json:
            warn(note)
        plan, rendered = run_async(
            _plan(session, space, args.message, offline=options.offline, render=args.json)
        )
        window = session.window
        sampling = plan_sampling(session, plan)
    if args.json:
        data = plan.to_dict()
        data.update(rendered_json(rendered, plan.request_messages()))
        # The request's figure (the server's count where it counts), as every surface says it.
        data["prompt_tokens"] = plan.prompt_tokens
        data["figure"] = figure_words(plan)
        data["conversation_id"] = conversation
        data["recall_by_meaning"] = prepared.to_dict()
        data["sampling"] = sampling
        data["window_source"] = window.source
        facts = session.facts
        data["server"] = (
            None
            if facts is None
            else {
                "flavour": facts.flavour,
                "tokenizer": facts.tokenizer,
                "context_window": facts.context_window,
                "checked_at": facts.checked_at.isoformat(),
            }
        )
        print_json(data)
        return 0
    console().print(render_plan(plan, conversation, window.source, sampling))
    for warning in window.warnings:
        console().print(cell(f"note: {warning}", style="yellow"))
    return 0


async def _plan(
    session: ChatSession, space: Workspace, message: str | None, *, offline: bool, render: bool
) -> tuple[ContextPlan, RenderedRequest | NotRendered]:
    """The plan of the next request, counted by the server's own tokenizer where it has one
    (the command waits for those counts, at most `SERVER_COUNT_WAIT` seconds, rather than
    print the estimate it starts from), and, when asked for, the server's rendering of it."""
    try:
        answered = await _learn(session, space, offline=offline)
        if answered and not offline:
            await count_first(session, message, SERVER_COUNT_WAIT)
        plan = session.with_request(session.plan(message))
        if not render:
            return plan, NOT_ASKED
        if offline:
            return plan, OFFLINE
        if not answered:
            return plan, NotRendered("The server did not answer: it was not asked to render.")
        return plan, await render_request(session, plan.request_messages())
    finally:
        await session.aclose()


async def _learn(session: ChatSession, space: Workspace, *, offline: bool) -> bool:
    """Ask the server about itself unless what was learned last time is fresh; False when
    nothing answers there (said as a note)."""
    profile = session.profile
    kept = space.state.facts_for(profile.base_url, profile.model)
    if not offline and (kept is None or not kept.fresh()):
        # The plan needs no server: one line says none answers, and the window is the
        # configured or documented one, without guesses about what it "does not report".
        notice = await unreachable_notice(session, space.loaded.path)
        if notice is not None:
            warn(f"note: {notice}")
            return False
    await learn_server(session, space, offline=offline)
    return True


def rendered_json(
    rendered: RenderedRequest | NotRendered, messages: Sequence[Mapping[str, str]]
) -> dict[str, Any]:
    """`rendered` (the prompt as the server's template lays it out) or why it is null."""
    if isinstance(rendered, NotRendered):
        return {"rendered": None, "rendered_reason": rendered.reason}
    return {"rendered": rendered.to_dict(messages)}


def plan_sampling(session: ChatSession, plan: ContextPlan) -> dict[str, Any]:
    """The preset in force and the sampling the plan's request asks for."""
    body = plan.request.get("body") if plan.request is not None else None
    sent = Sampling.of_body(body) if isinstance(body, Mapping) else session.sampling
    return {"preset": session.preset_name, **sent.to_dict()}


def _sampling_words(sampling: Mapping[str, Any]) -> str:
    """The preset and the sampling asked for beyond the reply's limit, as a line's end."""
    words = [f"preset {sampling['preset']}"] if sampling.get("preset") else []
    words += Sampling(sampling.get("temperature"), sampling.get("top_p")).words()
    return "".join(f" · {word}" for word in words)


def render_plan(
    plan: ContextPlan,
    conversation: int | None,
    window_source: str,
    sampling: Mapping[str, Any] | None = None,
) -> Group:
    header = cell(
        f"conversation {conversation if conversation is not None else '(none yet)'} · "
        f"mode {plan.mode} · window {plan.context_window:,} ({window_source}) · "
        f"reserve {plan.output_reserve:,} · budget {plan.total_budget:,}"
        f"{_sampling_words(sampling or {})}\n"
        f"{figure_words(plan)} used, {room_words(plan)} · {plan.counter_note}"
    )
    layers = table("layer", "tokens", "share of the budget", "items", "left out")
    for layer in plan.layers:
        # The input is counted first; a layer with nothing to send has no share (0%).
        share = "counted first" if layer.layer is Layer.INPUT else share_words(layer)
        layers.add_row(
            layer.layer.value,
            f"{layer.tokens:,}",
            share,
            str(len(layer.items)),
            str(len(layer.left_out)),
        )
    left = table("layer", "item", "tokens", "reason", title="left out")
    for layer in plan.layers:
        for item in layer.left_out:
            left.add_row(
                layer.layer.value,
                cell(f"{item.ref} {item.label}".strip()),
                f"{item.tokens:,}",
                cell(item.detail),
            )
    parts: list[Text | object] = [header, layers]
    if plan.left_out:
        parts.append(left)
    for note in (n for layer in plan.layers for n in layer.notes):
        parts.append(cell(f"note: {note}", style="yellow"))
    for hint in (h for layer in plan.layers for h in layer.hints):
        parts.append(cell(hint, style="dim"))
    for warning in plan.warnings:
        style = "bold red" if plan.status is PlanStatus.OVER_BUDGET else "yellow"
        parts.append(cell(warning, style=style))
    return Group(*parts)  # type: ignore[arg-type]
