"""`ctxchat context`: the plan the next request would send, as a table or JSON."""

from __future__ import annotations

import argparse
import asyncio

from rich.console import Group
from rich.text import Text

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.reachability import unreachable_notice
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import (
    EMBEDDING_WAIT,
    Connect,
    learn_server,
    prepare_recall,
    unembedded_notice,
)
from ctxchat.chat.workspace import Workspace
from ctxchat.cli.common import conversation_id, make_session, print_json, workspace
from ctxchat.cli.output import warn
from ctxchat.cli.tables import cell, console, table
from ctxchat.core.plan import ContextPlan, PlanStatus


def show_context(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        conversation = conversation_id(space, options)
        session = make_session(space, options, conversation, connect=Connect.TRY)
        # The window the app plans with: cached from the last time the server was asked.
        asyncio.run(_learn(session, space, offline=options.offline))
        left = prepare_recall(
            session, args.message, wait=None if args.embed_all else EMBEDDING_WAIT
        )
        if left:
            warn(unembedded_notice(left))
        plan = session.with_request(session.plan(args.message))
        window = session.window
    if args.json:
        data = plan.to_dict()
        data["conversation_id"] = conversation
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
    console().print(render_plan(plan, conversation, window.source))
    for warning in window.warnings:
        console().print(Text(f"note: {warning}", style="yellow"))
    return 0


async def _learn(session: ChatSession, space: Workspace, *, offline: bool) -> None:
    try:
        profile = session.profile
        kept = space.state.facts_for(profile.base_url, profile.model)
        if not offline and (kept is None or not kept.fresh()):
            # The plan needs no server: one line says none answers, and the window is the
            # configured or documented one, without guesses about what it "does not report".
            notice = await unreachable_notice(session, space.loaded.path)
            if notice is not None:
                warn(f"note: {notice}")
                return
        await learn_server(session, space, offline=offline)
    finally:
        await session.aclose()


def render_plan(plan: ContextPlan, conversation: int | None, window_source: str) -> Group:
    header = Text()
    header.append(f"conversation {conversation if conversation is not None else '(none yet)'} · ")
    header.append(f"mode {plan.mode} · window {plan.context_window:,} ({window_source}) · ")
    header.append(f"reserve {plan.output_reserve:,} · budget {plan.total_budget:,}\n")
    header.append(f"{plan.tokens:,} tokens used, {plan.free:,} free · {plan.counter_note}")
    layers = table("layer", "tokens", "budget", "share", "items", "left out")
    for layer in plan.layers:
        share = f"{layer.share:.0%}" if layer.share else "first"
        layers.add_row(
            layer.layer.value,
            f"{layer.tokens:,}",
            f"{layer.budget:,}" if layer.budget else "-",
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
        parts.append(Text(f"note: {note}", style="yellow"))
    for hint in (h for layer in plan.layers for h in layer.hints):
        parts.append(Text(hint, style="dim"))
    for warning in plan.warnings:
        style = "bold red" if plan.status is PlanStatus.OVER_BUDGET else "yellow"
        parts.append(Text(warning, style=style))
    return Group(*parts)  # type: ignore[arg-type]
