"""`ctxchat project list|create|add|remove|delete`: conversations that share memory entries."""

from __future__ import annotations

import argparse

from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import print_json, require_conversation, workspace
from ctxchat.cli.tables import cell, console, table
from ctxchat.core.counts import counted
from ctxchat.store.records import Project


def project_dict(project: Project) -> dict[str, object]:
    return {
        "id": project.id,
        "name": project.name,
        "conversations": project.conversations,
        "entries": project.entries,
        "created_at": project.created_at,
    }


def project_command(args: argparse.Namespace, options: SessionOptions) -> int:
    action = args.project_command
    with workspace(options) as space:
        store = space.store
        if action == "list":
            projects = store.projects.projects()
            if args.json:
                print_json([project_dict(p) for p in projects])
            elif not projects:
                print("No projects.")
            else:
                grid = table("id", "name", "conversations", "entries")
                for p in projects:
                    grid.add_row(str(p.id), cell(p.name), str(p.conversations), str(p.entries))
                console().print(grid)
            return 0
        if action == "create":
            project = store.projects.create_project(args.name)
            print(f"Created project “{project.name}”.")
            return 0
        if action == "delete":
            project = store.projects.project_named(args.name)
            store.projects.delete_project(project.id, entries=args.entries)
            what = "made global" if args.entries == "global" else "deleted"
            print(
                f"Deleted project “{project.name}”: its "
                f"{counted(project.conversations, 'conversation', 'conversations')} are kept, "
                f"its {counted(project.entries, 'entry', 'entries')} {what}."
            )
            return 0
        conversation = require_conversation(space, options)
        if action == "add":
            project = store.projects.project_named(args.name)
            store.projects.move_to_project(conversation, project.id)
            print(f"Conversation {conversation} is in project “{project.name}”.")
            return 0
        # remove
        store.projects.move_to_project(conversation, None)
        print(f"Conversation {conversation} is in no project.")
        return 0
