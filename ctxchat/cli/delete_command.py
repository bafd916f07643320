"""`ctxchat delete ID`: delete a conversation; its own memory entries are kept unless asked."""

from __future__ import annotations

import argparse
import sys

from ctxchat.chat.deletion import ConversationDeletion
from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import print_json, workspace
from ctxchat.cli.confirm import confirm
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import say, warn
from ctxchat.core.counts import counted


def delete_conversation(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        deletion = ConversationDeletion.of(space.store, args.id)
        if not args.yes:
            if not sys.stdin.isatty():
                raise CliError(
                    f"{deletion.question()} Pass --yes to delete without asking "
                    "(standard input is not a terminal).",
                    EXIT_USAGE,
                )
            note = _deleted_too(deletion) if args.with_memory else deletion.memory_note()
            if note and not args.with_memory:
                note += " (--with-memory deletes them too.)"
            if note:
                warn(note)
            if not confirm(deletion.question()):
                warn("Nothing was deleted.")
                return 0
        space.store.conversations.delete_conversation(args.id, with_memory=args.with_memory)
    if args.json:
        ids = [entry.id for entry in deletion.memory]
        print_json(
            {
                "deleted": deletion.conversation_id,
                "title": deletion.name,
                "messages": deletion.messages,
                "memory": {
                    "kept": [] if args.with_memory else ids,
                    "deleted": ids if args.with_memory else [],
                },
            }
        )
    else:
        say(deletion.done(with_memory=args.with_memory))
    return 0


def _deleted_too(deletion: ConversationDeletion) -> str:
    count = len(deletion.memory)
    if not count:
        return ""
    return f"Its {counted(count, 'memory entry', 'memory entries')} will be deleted too."
