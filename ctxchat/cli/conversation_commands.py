"""`ctxchat conversations`, `ctxchat export`, `ctxchat import`."""

from __future__ import annotations

import argparse
import json

from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import print_json, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import say, tell, write_out
from ctxchat.cli.tables import cell, console, table
from ctxchat.store.markdown import when


def list_conversations(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        rows = space.store.list_conversations(args.search)
    if args.json:
        print_json(
            [
                {
                    "id": c.id,
                    "title": c.title,
                    "messages": c.message_count,
                    "tokens": c.tokens,
                    "created_at": c.created_at,
                    "updated_at": c.updated_at,
                }
                for c in rows
            ]
        )
        return 0
    if not rows:
        say(
            "No conversations." if not args.search else f"No conversation contains {args.search!r}."
        )
        return 0
    grid = table("id", "title", "messages", "tokens", "updated")
    for c in rows:
        updated = when(c.updated_at, "%Y-%m-%d %H:%M")
        grid.add_row(
            str(c.id),
            cell(c.name),
            f"{c.message_count:,}",
            f"{c.tokens:,}",
            updated,
        )
    console().print(grid)
    return 0


def export_conversation(args: argparse.Namespace, options: SessionOptions) -> int:
    from ctxchat.store import export_text

    with workspace(options) as space:
        data = space.store.export_conversation(args.id)
    text = export_text(data, markdown=args.format == "md")
    if args.output:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise CliError(f"cannot write {args.output}: {error.strerror}", EXIT_USAGE) from error
        tell(f"Wrote {args.output}")
    else:
        write_out(text)
    return 0


def import_conversation(args: argparse.Namespace, options: SessionOptions) -> int:
    try:
        data = json.loads(args.file.read_text(encoding="utf-8"))
    except OSError as error:
        raise CliError(f"cannot read {args.file}: {error.strerror}", EXIT_USAGE) from error
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CliError(f"{args.file} is not a JSON export: {error}", EXIT_USAGE) from error
    if not isinstance(data, dict):
        raise CliError(f"{args.file} is not a ctxchat JSON export", EXIT_USAGE)
    with workspace(options) as space:
        new_id = space.store.import_conversation(data)
    say(f"Imported as conversation {new_id}.")
    return 0
