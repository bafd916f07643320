"""`ctxchat import FILE [--from NAME] [--dry-run]`: a ctxchat JSON export, or the history of
another chat tool (ChatGPT, Claude.ai, simonw/llm, Open WebUI)."""

from __future__ import annotations

import argparse

from ctxchat.chat.history_import import FileImport, import_file
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import resolve_profile
from ctxchat.cli.common import workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import write_out
from ctxchat.core.tokens import DeferredCounter
from ctxchat.store.importers import HistoryFormatError


def import_history(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        profile = resolve_profile(space.settings, options)
        # Counted once, as the model a conversation starts on counts it; another model
        # counts again when it first plans (see Messages.history).
        counter = DeferredCounter(profile.model if profile else options.model or "")
        try:
            done = import_file(
                space.store, args.file, counter=counter, source=args.source, dry_run=args.dry_run
            )
        except HistoryFormatError as error:
            raise CliError(str(error), EXIT_USAGE) from None
        except OSError as error:
            raise CliError(
                f"cannot read {args.file}: {error.strerror or error}", EXIT_USAGE
            ) from None
    if args.dry_run:
        write_out(_listing(done))
    write_out(done.summary() + "\n")
    return 0


def _listing(done: FileImport) -> str:
    """A dry run's list: each conversation, new or there already."""
    if done.report is None:
        return ""
    lines = []
    for outcome in done.report.outcomes:
        size = f"{outcome.messages:,} message{'s' * (outcome.messages != 1)}"
        if outcome.already:
            lines.append(
                f"  there  {outcome.title or 'Untitled'} (conversation {outcome.conversation_id})"
            )
        else:
            lines.append(f"  new    {outcome.title or 'Untitled'} ({size})")
    return "".join(f"{line}\n" for line in lines)
