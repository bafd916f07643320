"""`ctxchat send`: one turn, streamed to stdout, then an automatic summary when one is due."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import sys
import time
from typing import Any

from ctxchat.chat.costs import reply_cost_of
from ctxchat.chat.counted_first import send_counted
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import (
    EMBEDDING_WAIT,
    Connect,
    RecallPrepared,
    learn_server,
    prepare_recall,
    unembedded_notice,
)
from ctxchat.chat.summarizer import (
    Summarizer,
    SummaryFailed,
    SummaryHeld,
    SummaryInProgress,
    SummaryWaits,
)
from ctxchat.chat.turn import (
    ReplyDelta,
    TurnEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from ctxchat.chat.workspace import Workspace
from ctxchat.cli.common import (
    conversation_id,
    make_session,
    print_json,
    require_server,
    run_async,
    workspace,
)
from ctxchat.cli.ctrl_c import CtrlC
from ctxchat.cli.exits import EXIT_INTERRUPTED, EXIT_PROVIDER, EXIT_USAGE, CliError
from ctxchat.cli.output import warn, write_out
from ctxchat.cli.summarize_command import summary_result, summary_warnings
from ctxchat.cli.summary_command import REVIEW_HINT
from ctxchat.cli.utf8 import utf8_text
from ctxchat.core.history import preview

_NEWLINES = re.compile(r"\r\n?")


def _message_text(args: argparse.Namespace) -> str:
    if args.text is not None:
        text: str = args.text
    elif sys.stdin.isatty():
        raise CliError("give the message as an argument or on standard input", EXIT_USAGE)
    else:
        # Read as bytes: how Python decodes standard input depends on the locale (in a C or
        # C.UTF-8 one it lets bad bytes through as surrogates, which SQLite cannot store).
        raw = getattr(sys.stdin, "buffer", None)  # none when stdin was replaced by text
        try:
            text = sys.stdin.read() if raw is None else utf8_text(raw.read())
        except ValueError as error:
            raise CliError(f"standard input is {error}; nothing was sent", EXIT_USAGE) from None
        text = _NEWLINES.sub("\n", text)  # as text mode reads them
    if not text.strip():
        raise CliError("the message is empty", EXIT_USAGE)
    return text


def send(args: argparse.Namespace, options: SessionOptions) -> int:
    text = _message_text(args)
    with workspace(options) as space:
        existing = None if args.new else conversation_id(space, options)
        # Connect first: a missing key must not leave an empty new conversation behind.
        session = make_session(space, options, existing, connect=Connect.MUST)
        conversation = existing
        if conversation is None:
            conversation = space.store.conversations.create_conversation(
                args.title or preview(text)
            ).id
            session = session.for_conversation(conversation)
        if options.preset is not None:
            session.choose_preset(options.preset)  # remembered with the conversation
        prepared = prepare_recall(session, text, wait=None if args.embed_all else EMBEDDING_WAIT)
        if prepared.left:
            warn(unembedded_notice(prepared.left))
        try:
            code = run_async(
                _send(session, space, text, args, offline=options.offline, prepared=prepared)
            )
        except BaseException:
            # A refused message (over the budget, a server that cannot be reached) must not
            # leave the new conversation behind, empty.
            if existing is None and not space.store.messages.count_messages(conversation):
                space.store.conversations.delete_conversation(conversation)
            raise
        space.update_state(last_conversation_id=conversation)
        return code


async def _send(
    session: ChatSession,
    space: Workspace,
    text: str,
    args: argparse.Namespace,
    *,
    offline: bool,
    prepared: RecallPrepared,
) -> int:
    assert session.backend is not None
    result: dict[str, Any] = {
        "conversation_id": session.conversation_id,
        "recall_by_meaning": prepared.to_dict(),
    }
    code = 0
    with CtrlC() as ctrl_c:
        try:
            await require_server(session, space)
            await learn_server(session, space, offline=offline)
            async with contextlib.aclosing(send_counted(session, text)) as events:
                async for event in events:
                    if ctrl_c.pressed:
                        break  # closing the turn keeps the part received, marked interrupted
                    code = _show(event, result, args) or code
            if "reply" in result:
                result["cost"] = reply_cost_of(session, result["reply"]["id"]).to_dict()
            if code == 0 and not args.no_summarize and not ctrl_c.pressed:
                result["summary"] = await _auto_summarize(session)
        except asyncio.CancelledError:
            if not ctrl_c.pressed:
                raise
            ctrl_c.absorb()
        finally:
            await session.aclose()
    if ctrl_c.pressed:
        if not args.json:
            sys.stdout.write("\n")
        warn("interrupted; the part of the reply received so far was kept.")
        return EXIT_INTERRUPTED
    if args.json:
        print_json(result)
    return code


def _show(event: TurnEvent, result: dict[str, Any], args: argparse.Namespace) -> int:
    """Write one turn event out (or into `result` for --json); the exit code it calls for."""
    if isinstance(event, TurnStarted):
        result["plan"] = event.plan.to_dict()
    elif isinstance(event, ReplyDelta) and not args.json and event.text:
        write_out(event.text)
        sys.stdout.flush()
    elif isinstance(event, TurnFinished | TurnFailed):
        reply = event.reply
        result["reply"] = {
            "id": reply.id,
            "content": reply.content,
            "reasoning": reply.reasoning,
            "status": reply.status.value,
            "finish_reason": reply.finish_reason,
            "length": reply.length.to_dict(),
        }
        result["usage"] = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "cached_tokens": reply.cached_tokens,
            "estimated_prompt_tokens": reply.estimated_prompt_tokens,
            "drift": reply.drift,
        }
        if not args.json and reply.content and not reply.content.endswith("\n"):
            sys.stdout.write("\n")
        if isinstance(event, TurnFinished) and event.notice:
            warn(event.notice)
        if isinstance(event, TurnFailed):
            result["error"] = {"kind": event.error.kind.value, "message": str(event.error)}
            warn(str(event.error))
            return EXIT_PROVIDER
    return 0


async def _auto_summarize(session: ChatSession) -> dict[str, Any] | None:
    fold = session.pending_fold()
    if fold is None:
        return None
    try:
        summarizer = Summarizer.for_session(session)
        version = await summarizer.fold_automatic(fold)
    except SummaryInProgress as busy:
        # The other job folds these turns; the next turn folds what it leaves.
        warn(f"not summarized now: {busy.job.describe(time.time())}.")
        return {"skipped": str(busy)}
    except (SummaryHeld, SummaryWaits) as held:
        warn(str(held))
        warn(REVIEW_HINT)
        return {"held": summary_result(held.version)}
    except SummaryFailed as error:
        warn(f"{error} The previous summary stays in force.")
        return {"error": str(error)}
    warn(f"folded {len(fold.messages)} messages into summary v{version.version}.")
    for line in summary_warnings(version, summarizer.max_tokens()):
        warn(line)
    return summary_result(version)
