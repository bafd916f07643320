"""`ctxchat summarize`: fold older turns into the summary now (or rebuild it), waiting for a
summary another process is making, and say what the new version lost."""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, learn_server
from ctxchat.chat.summarizer import Summarizer, SummaryFailed, SummaryInProgress
from ctxchat.chat.summary_job import SummaryBusy, SummaryJob, current_job, wait_for_job
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
from ctxchat.cli.exits import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_PROVIDER, EXIT_USAGE, CliError
from ctxchat.cli.output import warn
from ctxchat.store import SummaryVersion

KEPT = " The previous summary stays in force."


def version_dict(version: SummaryVersion) -> dict[str, Any]:
    """A summary version as `--json` prints it; its loss report goes beside it (`lost`)."""
    return {
        "id": version.id,
        "version": version.version,
        "text": version.text,
        "first_message_id": version.first_message_id,
        "last_message_id": version.last_message_id,
        "tokens": version.tokens,
        "strategy": version.strategy.value,
        "model": version.model,
        "cut": version.cut,
        "edited": version.edited,
        "flagged": version.flagged,
        "waiting": version.waiting,
        "faults": list(version.faults),
        "note": version.note,
        "created_at": version.created_at,
    }


def summary_result(version: SummaryVersion) -> dict[str, Any]:
    """The new version and its loss report, as `summarize --json` and `send --json` give it."""
    return {"version": version_dict(version), "lost": [i.to_dict() for i in version.lost]}


def summary_warnings(version: SummaryVersion, max_tokens: int) -> list[str]:
    """What to know about a new version: that its reply was cut, and how much it lost."""
    lines = []
    if version.cut:
        lines.append(
            f"The model's reply was cut at the summary's limit ({max_tokens:,} tokens): it "
            "ends at its last whole sentence."
        )
    if version.lost:
        count = len(version.lost)
        lines.append(
            f"It does not hold {count} detail{'s' if count != 1 else ''} of the folded messages."
        )
    lines.extend(f"It {fault}." for fault in version.faults)
    return lines


def tell_summary(version: SummaryVersion, max_tokens: int) -> list[str]:
    """The lines that say what a new version is, was cut to and lost, each lost detail
    with the message it came from."""
    lines = [
        f"Summary v{version.version} covers messages {version.first_message_id}-"
        f"{version.last_message_id} ({version.tokens:,} tokens).",
        *summary_warnings(version, max_tokens),
    ]
    lines.extend(f"  #{item.message_id} {item.kind.value}: {item.text}" for item in version.lost)
    return lines


def summarize(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        conversation = conversation_id(space, options)
        if conversation is None:
            raise CliError("there is no conversation to summarize", EXIT_USAGE)
        session = make_session(space, options, conversation, connect=Connect.MUST)
        return run_async(_summarize(session, space, args, offline=options.offline))


def _waiting(job: SummaryJob) -> None:
    warn(f"waiting: {job.describe(time.time())}.")


async def _summarize(
    session: ChatSession, space: Workspace, args: argparse.Namespace, *, offline: bool
) -> int:
    assert session.backend is not None
    with CtrlC() as ctrl_c:
        try:
            # Before any request: a server that runs one request at a time (llama.cpp) would
            # not answer while the other job's request runs, or would stop it for ours.
            refused = await _wait_or_refuse(session, args)
            if refused is not None:
                return refused
            await require_server(session, space)
            # Chunks are sized from the budget: the window the chat uses, as everywhere.
            await learn_server(session, space, offline=offline)
            return await _fold_once_free(session, args)
        except asyncio.CancelledError:
            if not ctrl_c.pressed:
                raise
            ctrl_c.absorb()
            warn("interrupted; nothing was summarized." + KEPT)
            return EXIT_INTERRUPTED
        finally:
            await session.aclose()


async def _wait_or_refuse(session: ChatSession, args: argparse.Namespace) -> int | None:
    """Wait for a summary another job is making (or, with `--no-wait`, refuse: the exit
    code); None once none runs."""
    job = current_job(session)
    if job is None or not job.running:
        return None
    if args.no_wait:
        busy = SummaryInProgress(SummaryBusy(job, time.time()))
        return _failed(str(busy), args, EXIT_ERROR)
    await wait_for_job(session, _waiting)
    return None


async def _fold_once_free(session: ChatSession, args: argparse.Namespace) -> int:
    """Summarize; while another job summarizes the conversation, wait for it (or, with
    `--no-wait`, refuse) and then see what is left to fold."""
    while True:
        try:
            if not args.no_wait:
                await wait_for_job(session, _waiting)
            return _told(session, args, await _run(session, args.rebuild))
        except SummaryInProgress as busy:
            if args.no_wait:
                return _failed(str(busy), args, EXIT_ERROR)
        except SummaryFailed as error:
            return _failed(f"{error}{KEPT}", args, EXIT_PROVIDER)


async def _run(session: ChatSession, rebuild: bool) -> tuple[SummaryVersion, int] | None:
    summarizer = Summarizer.for_session(session)
    if rebuild:
        version = await summarizer.rebuild()
    else:
        fold = session.pending_fold(manual=True)
        if fold is None:
            return None
        version = await summarizer.fold(fold)
    return version, summarizer.max_tokens()


def _told(
    session: ChatSession, args: argparse.Namespace, made: tuple[SummaryVersion, int] | None
) -> int:
    if made is None:
        note = (
            f"Nothing to summarize: the last {session.settings.context.min_recent} messages "
            "stay in working memory, and the rest is in the summary."
        )
        if args.json:
            print_json({"conversation_id": session.stored_id, "version": None, "lost": []})
        else:
            print(note)
        return 0
    version, max_tokens = made
    if args.json:
        print_json({"conversation_id": session.stored_id, **summary_result(version)})
    else:
        print("\n".join(tell_summary(version, max_tokens)))
    return 0


def _failed(message: str, args: argparse.Namespace, code: int) -> int:
    warn(message)
    if args.json:
        print_json({"error": message, "version": None, "lost": []})
    return code
