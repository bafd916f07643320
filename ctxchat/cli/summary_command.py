"""`ctxchat summary [accept|reject|keep]`: review the conversation's summary from a shell: the
one in force and one held for review, with what each lost, accepted, rejected or kept."""

from __future__ import annotations

import argparse

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect
from ctxchat.chat.summary_notice import what_it_lost
from ctxchat.chat.summary_review import mark_reviewed, settle_waiting
from ctxchat.cli.common import make_session, print_json, require_conversation, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import write_out
from ctxchat.cli.summarize_command import summary_result
from ctxchat.store import SummaryVersion

REVIEW_HINT = (
    "review it with `ctxchat summary` (then `ctxchat summary accept` or `reject`), or with "
    "f3 in the app."
)
"""What `send` adds when an automatic summary is held for review."""


def summary_command(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        conversation = require_conversation(space, options)
        session = make_session(space, options, conversation, connect=Connect.NO)
        said = _change(session, args.summary_command)
        active = session.active_summary()
        held = session.store.summaries.waiting_summary(session.stored_id)
    if getattr(args, "json", False):
        print_json(
            {
                "conversation_id": conversation,
                "in_force": None if active is None else summary_result(active),
                "held": None if held is None else summary_result(held),
                "done": said,
            }
        )
    else:
        write_out((f"{said}\n" if said else "") + _text(conversation, active, held))
    return 0


def _change(session: ChatSession, action: str | None) -> str:
    """Do what `action` says to the held summary or the one in force; what was done."""
    if action is None:
        return ""
    held = session.store.summaries.waiting_summary(session.stored_id)
    if action in ("accept", "reject"):
        if held is None:
            raise CliError("No summary waits for review in this conversation.", EXIT_USAGE)
        accepted = settle_waiting(session, held.id, accepted=action == "accept")
        if accepted is not None:
            return f"Summary v{accepted.version} is in force."
        return (
            f"Summary v{held.version} is deleted; the turns it would fold are sent as they "
            "are, and the next automatic summary folds them again."
        )
    active = session.active_summary()  # "keep"
    if active is None or not active.flagged:
        raise CliError("The summary in force has nothing to review.", EXIT_USAGE)
    mark_reviewed(session, active.id)
    return f"Summary v{active.version} is kept as it is; plans no longer flag it."


def _text(conversation: int, active: SummaryVersion | None, held: SummaryVersion | None) -> str:
    """The held summary and the one in force, each with its text and what its check found."""
    lines = []
    for version, title in ((held, "Held for your review, not in force"), (active, "In force")):
        if version is None:
            continue
        lines.append(
            f"{title}: summary v{version.version}, messages "
            f"{version.first_message_id}-{version.last_message_id}, {version.tokens:,} tokens."
        )
        lines.extend("  " + line for line in version.text.splitlines())
        found = _found(version)
        if found:
            lines.append(f"  Its check: {found}.")
    if not lines:
        return f"Conversation {conversation} has no summary yet.\n"
    if held is not None:
        lines.append("`ctxchat summary accept` puts it in force; `reject` deletes it.")
    elif active is not None and _found(active):
        lines.append("`ctxchat summary keep` keeps it as it is (plans no longer flag it).")
    return "\n".join(lines) + "\n"


def _found(version: SummaryVersion) -> str:
    """What a version's check found, in words ("" for nothing or once reviewed)."""
    if not version.flagged and not version.waiting:
        return ""
    return what_it_lost(version.lost, version.faults, shown=len(version.lost))
