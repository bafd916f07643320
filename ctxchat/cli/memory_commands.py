"""`ctxchat memory list|add|edit|rm|pin|unpin|restore|tag|off|on`."""

from __future__ import annotations

import argparse

from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import (
    conversation_id,
    print_json,
    require,
    require_conversation,
    workspace,
)
from ctxchat.cli.tables import cell, console, table
from ctxchat.core.memory import (
    SWITCHED_OFF_DETAIL,
    MemoryEntry,
    provenance,
    restored_note,
    superseded_detail,
    switched_off,
)
from ctxchat.store import UNSET


def entry_dict(entry: MemoryEntry) -> dict[str, object]:
    return {
        "id": entry.id,
        "kind": entry.kind.value,
        "text": entry.text,
        "key": entry.key,
        "pinned": entry.pinned,
        "importance": entry.importance,
        "scope": entry.scope,
        "conversation_id": entry.conversation_id,
        "project": entry.project,
        "source": entry.source,
        "provenance": provenance(entry.source).text,
        "enabled": entry.enabled,
        "created_at": entry.created_at,
        "updated_at": entry.updated_at,
        "superseded_by": entry.superseded_by,
        "superseded_at": entry.superseded_at,
        "turn": entry.turn,
        "off_in": sorted(entry.off_in),
    }


def memory_command(args: argparse.Namespace, options: SessionOptions) -> int:
    action = args.memory_command
    with workspace(options) as space:
        store = space.store
        if action == "list":
            conversation = None if args.all else conversation_id(space, options)
            entries = store.memory.list_memory(
                conversation_id=conversation, include_all_scopes=args.all
            )
            if args.json:
                print_json([entry_dict(e) for e in entries])
                return 0
            if not entries:
                print("No memory entries.")
                return 0
            grid = table("id", "kind", "pin", "imp", "scope", "text", "from")
            for e in entries:
                scope = f"conv {e.conversation_id}" if e.conversation_id else e.scope_words
                text = shown = f"{e.key}: {e.text}" if e.key else e.text
                if e.superseded:
                    text += f"  ({superseded_detail(e)})"
                elif not e.enabled:
                    text += "  (excluded)"
                elif switched_off(e, conversation):
                    text += f"  ({SWITCHED_OFF_DETAIL})"
                grid.add_row(
                    str(e.id),
                    e.kind.value,
                    "📌" if e.pinned else "",
                    str(e.importance),
                    scope,
                    cell(text, "dim" if e.superseded or text != shown else ""),
                    cell(provenance(e.source).text, "dim"),
                )
            console().print(grid)
            return 0
        if action == "add":
            scope_id = None
            project_id = (
                None if args.project is None else store.projects.project_named(args.project).id
            )
            if args.scope == "conversation" and project_id is None:
                scope_id = require(
                    conversation_id(space, options),
                    "a conversation-scoped entry needs a conversation: pass --conversation ID",
                )
            entry = store.memory.add_memory(
                args.kind,
                args.text,
                key=args.key,
                pinned=args.pin,
                importance=args.importance,
                conversation_id=scope_id,
                replaces=args.replaces,
                project_id=project_id,
            )
            print(f"Added memory entry {entry.id} ({entry.kind.value}, {entry.scope_words}).")
            for old in store.memory.list_memory(include_all_scopes=True):
                if old.superseded_by == entry.id:
                    print(f"Memory entry {old.id} is kept as superseded by {entry.id}.")
            return 0
        if action == "edit":
            entry = store.memory.update_memory(
                args.id,
                text=args.text if args.text is not None else UNSET,
                key=args.key if args.key is not None else UNSET,
                importance=args.importance if args.importance is not None else UNSET,
            )
            print(f"Updated memory entry {entry.id}.")
            return 0
        if action == "rm":
            store.memory.delete_memory(args.id)
            print(f"Deleted memory entry {args.id}.")
            return 0
        if action == "restore":
            entry = store.memory.restore_memory(args.id)
            mode = options.mode or space.state.last_mode or space.settings.default_mode
            print(restored_note(entry, mode))
            return 0
        if action in ("off", "on"):
            here = require_conversation(space, options)
            entry = store.memory.switch_memory(args.id, here, on=action == "on")
            if args.json:
                print_json(entry_dict(entry))
            elif action == "off":
                print(f"Memory entry {entry.id} is switched off for conversation {here}.")
            else:
                print(f"Memory entry {entry.id} is on again in conversation {here}.")
            return 0
        if action in ("pin", "unpin"):
            store.memory.update_memory(args.id, pinned=action == "pin")
            print(f"{'Pinned' if action == 'pin' else 'Unpinned'} memory entry {args.id}.")
            return 0
        # tag: kind, scope, inclusion
        changes: dict[str, object] = {}
        if args.kind:
            changes["kind"] = args.kind
        if args.scope == "global":
            changes["conversation_id"] = None
            changes["project_id"] = None
        elif args.scope == "conversation":
            changes["conversation_id"] = require(
                conversation_id(space, options), "pass --conversation ID for a conversation scope"
            )
        if args.enabled is not None:
            changes["enabled"] = args.enabled
        require(changes or None, "say what to change: a kind, --scope, --include or --exclude")
        entry = store.memory.update_memory(args.id, **changes)  # type: ignore[arg-type]
        print(
            f"Memory entry {entry.id} is now {entry.kind.value}, {entry.scope}"
            f"{'' if entry.enabled else ', excluded'}."
        )
        return 0
