"""`ctxchat attach PATH [--refresh]`, `ctxchat detach PATH`, `ctxchat files`: files as context."""

from __future__ import annotations

import argparse
from typing import Any

from ctxchat.chat.attachments import AttachRefused, FileStatus
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect
from ctxchat.cli.common import make_session, print_json, require_conversation, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import write_out
from ctxchat.cli.tables import cell, console, table
from ctxchat.core.budget import Layer


def files_command(args: argparse.Namespace, options: SessionOptions) -> int:
    as_json = getattr(args, "json", False)
    with workspace(options) as space:
        conversation = require_conversation(space, options)
        session = make_session(space, options, conversation, connect=Connect.NO)
        done: dict[str, Any] = {"conversation_id": conversation}
        line = ""
        try:
            if args.command == "attach":
                attached = session.files.attach(args.path, refresh=args.refresh)
                done |= {"refreshed": attached.refreshed, "unchanged": attached.unchanged}
                ref = attached.attachment.ref
            elif args.command == "detach":
                removed = session.files.detach(args.path)
                done["detached"] = {"id": removed.id, "path": removed.path, "name": removed.name}
                line = f"Detached {removed.name}: the next request no longer sends it.\n"
        except AttachRefused as error:
            raise CliError(str(error), EXIT_USAGE) from None
        plan = session.plan(None)
        statuses = session.files.statuses(plan)
        layer = plan.layer(Layer.FILES)
        done["layer"] = {"tokens": layer.tokens, "budget": layer.budget, "share": layer.share}
        done["notes"] = list(layer.notes)
    if args.command == "attach":
        status = next(s for s in statuses if s.attachment.ref == ref)
        done["file"] = status.to_dict()
        sent_with = {"budget": plan.total_budget, "files_sent": sum(1 for s in statuses if s.sent)}
        line = _attached_line(status, done | sent_with)
    else:
        done["files"] = [status.to_dict() for status in statuses]
    if as_json:
        print_json(done)
    elif args.command == "files":
        _listing(statuses, done)
    else:
        write_out(line)
    return 0


def _attached_line(status: FileStatus, done: dict[str, Any]) -> str:
    attachment = status.attachment
    if done["unchanged"]:
        verb = f"{attachment.name} is attached already and unchanged"
    elif done["refreshed"]:
        verb = f"Read {attachment.name} anew"
    else:
        verb = f"Attached {attachment.name}"
    # The request carries the files message, its header and framing included: the file's
    # own count alone understates what it costs.
    message, budget, files_sent = done["layer"]["tokens"], done["budget"], done["files_sent"]
    others = f" ({status.sent:,} of them this file's)" if files_sent > 1 else ""
    sent = (
        f"sent {status.how}: the files message is {message:,} tokens with its framing"
        f"{others}, {message / budget if budget else 0.0:.1%} of the budget"
        if status.sent
        else "left out of the next request: no room in the files share"
    )
    return f"{verb} ({attachment.tokens:,} tokens; {sent}).\n"


def _listing(statuses: list[FileStatus], done: dict[str, Any]) -> None:
    if not statuses:
        print("No files are attached: `ctxchat attach PATH` attaches one.")
        return
    grid = table("id", "file", "tokens", "sent", "share", "on disk")
    for status in statuses:
        grid.add_row(
            str(status.attachment.id),
            cell(status.attachment.name),
            f"{status.attachment.tokens:,}",
            status.how,
            f"{status.share:.1%}",
            status.disk.value,
        )
    console().print(grid)
    layer = done["layer"]
    print(f"Files layer: {layer['tokens']:,} tokens of its budget {layer['budget']:,}.")
    for note in done["notes"]:
        write_out(f"note: {note}\n")
