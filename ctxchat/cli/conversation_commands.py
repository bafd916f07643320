"""`ctxchat conversations`, `ctxchat export`."""

from __future__ import annotations

import argparse

from ctxchat.chat.costs import conversation_costs
from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import print_json, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import say, tell, write_out
from ctxchat.cli.tables import cell, console, table
from ctxchat.core.prices import total_of
from ctxchat.store.connection import is_database_file
from ctxchat.store.importers.labels import origin_label
from ctxchat.store.markdown import when


def list_conversations(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        rows = space.store.conversations.list_conversations(args.search)
        costs = conversation_costs(space.store, space.settings) if args.json else {}
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
                    "cost": costs.get(c.id, total_of(())).to_dict(),
                    "origin": None if c.origin is None else {"from": c.origin, "id": c.origin_id},
                    "project": c.project,
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
    imported = any(c.origin for c in rows)
    projects = any(c.project for c in rows)
    grid = table(
        "id",
        "title",
        "messages",
        "tokens",
        "updated",
        *(("project",) if projects else ()),
        *(("from",) if imported else ()),
    )
    for c in rows:
        updated = when(c.updated_at, "%Y-%m-%d %H:%M")
        grid.add_row(
            str(c.id),
            cell(c.name),
            f"{c.message_count:,}",
            f"{c.tokens:,}",
            updated,
            *((cell(c.project or ""),) if projects else ()),
            *((cell(origin_label(c.origin)),) if imported else ()),
        )
    console().print(grid)
    return 0


def export_conversation(args: argparse.Namespace, options: SessionOptions) -> int:
    from ctxchat.store import export_text

    with workspace(options) as space:
        data = space.store.transfer.export_conversation(args.id)
        if args.output and is_database_file(args.output, space.store.path):
            raise CliError(
                f"{args.output} is ctxchat's own database; choose another file", EXIT_USAGE
            )
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
