"""`ctxchat send` (one turn, streamed to stdout) and `ctxchat summarize`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, learn_server, prepare_recall
from ctxchat.chat.summarizer import Summarizer, SummaryFailed
from ctxchat.chat.turn import ReplyDelta, TurnFailed, TurnFinished, TurnStarted, send_message
from ctxchat.chat.workspace import Workspace
from ctxchat.cli.common import conversation_id, make_session, print_json, workspace
from ctxchat.cli.exits import EXIT_PROVIDER, EXIT_USAGE, CliError
from ctxchat.core.history import preview
from ctxchat.safe_text import clean


def _message_text(args: argparse.Namespace) -> str:
    if args.text is not None:
        text: str = args.text
    elif sys.stdin.isatty():
        raise CliError("give the message as an argument or on standard input", EXIT_USAGE)
    else:
        text = sys.stdin.read()
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
            conversation = space.store.create_conversation(args.title or preview(text)).id
            session = session.for_conversation(conversation)
        prepare_recall(session)
        code = asyncio.run(_send(session, space, text, args, offline=options.offline))
        space.update_state(last_conversation_id=conversation)
        return code


async def _send(
    session: ChatSession, space: Workspace, text: str, args: argparse.Namespace, *, offline: bool
) -> int:
    assert session.backend is not None
    try:
        await learn_server(session, space, offline=offline)
        to_terminal = sys.stdout.isatty()
        result: dict[str, Any] = {"conversation_id": session.conversation_id}
        code = 0
        async for event in send_message(session, text):
            if isinstance(event, TurnStarted):
                result["plan"] = event.plan.to_dict()
            elif isinstance(event, ReplyDelta) and not args.json and event.text:
                # Escape sequences from a model never reach the user's terminal raw.
                sys.stdout.write(clean(event.text) if to_terminal else event.text)
                sys.stdout.flush()
            elif isinstance(event, TurnFinished | TurnFailed):
                reply = event.reply
                result["reply"] = {
                    "id": reply.id,
                    "content": reply.content,
                    "reasoning": reply.reasoning,
                    "status": reply.status.value,
                    "finish_reason": reply.finish_reason,
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
                    print(f"ctxchat: {event.notice}", file=sys.stderr)
                if isinstance(event, TurnFailed):
                    result["error"] = {"kind": event.error.kind.value, "message": str(event.error)}
                    print(f"ctxchat: {clean(str(event.error))}", file=sys.stderr)
                    code = EXIT_PROVIDER
        if code == 0 and not args.no_summarize:
            result["summary"] = await _auto_summarize(session)
        if args.json:
            print_json(result)
        return code
    finally:
        await session.aclose()


async def _auto_summarize(session: ChatSession) -> dict[str, Any] | None:
    fold = session.pending_fold()
    if fold is None:
        return None
    try:
        version = await Summarizer.for_session(session).fold(fold)
    except SummaryFailed as error:
        print(f"ctxchat: {error} The previous summary stays in force.", file=sys.stderr)
        return {"error": str(error)}
    print(
        f"ctxchat: folded {len(fold.messages)} messages into summary v{version.version}.",
        file=sys.stderr,
    )
    return {
        "version": version.version,
        "first_message_id": version.first_message_id,
        "last_message_id": version.last_message_id,
    }


def summarize(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        conversation = conversation_id(space, options)
        if conversation is None:
            raise CliError("there is no conversation to summarize", EXIT_USAGE)
        session = make_session(space, options, conversation, connect=Connect.MUST)
        return asyncio.run(
            _summarize(session, space, rebuild=args.rebuild, offline=options.offline)
        )


async def _summarize(
    session: ChatSession, space: Workspace, *, rebuild: bool, offline: bool
) -> int:
    assert session.backend is not None
    try:
        # Batches are sized from the budget: the window the chat uses, as everywhere.
        await learn_server(session, space, offline=offline)
        summarizer = Summarizer.for_session(session)
        if rebuild:
            version = await summarizer.rebuild()
        else:
            fold = session.pending_fold(manual=True)
            if fold is None:
                print("Nothing to summarize: every message is still among the recent ones.")
                return 0
            version = await summarizer.fold(fold)
    except SummaryFailed as error:
        print(f"ctxchat: {error} The previous summary stays in force.", file=sys.stderr)
        return EXIT_PROVIDER
    finally:
        await session.aclose()
    print(
        f"Summary v{version.version} covers messages {version.first_message_id}-"
        f"{version.last_message_id} ({version.tokens:,} tokens)."
    )
    return 0
