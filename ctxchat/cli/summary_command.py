"""`ctxchat summary [accept|reject|keep]`: review the conversation's summary from a shell: the
one in force and one held for review, with what each lost, accepted, rejected or kept."""

from __future__ import annotations

import argparse
from typing import Any

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect
from ctxchat.chat.summary_notice import what_it_lost
from ctxchat.chat.summary_review import mark_reviewed, settle_waiting
from ctxchat.cli.common import make_session, print_json, require_conversation, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import write_out
from ctxchat.cli.summarize_command import summary_result

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
        shown = _shown(session)
    if getattr(args, "json", False):
        print_json({**shown, "done": said})
    else:
        write_out((f"{said}\n" if said else "") + _text(shown))
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


def _shown(session: ChatSession) -> dict[str, Any]:
    """The summary in force and the one held for review, each with what it lost."""
    active = session.active_summary()
    held = session.store.summaries.waiting_summary(session.stored_id)
    return {
        "conversation_id": session.conversation_id,
        "in_force": None if active is None else summary_result(active),
        "held": None if held is None else summary_result(held),
    }


def _text(shown: dict[str, Any]) -> str:
    lines = []
    for key, title in (("held", "Held for your review, not in force"), ("in_force", "In force")):
        result = shown[key]
        if result is None:
            continue
        version = result["version"]
        lines.append(
            f"{title}: summary v{version['version']}, messages "
            f"{version['first_message_id']}-{version['last_message_id']}, "
            f"{version['tokens']:,} tokens."
        )
        lines.extend("  " + line for line in str(version["text"]).splitlines())
        found = _found(result)
        if found:
            lines.append(f"  Its check: {found}.")
    if not lines:
        return f"Conversation {shown['conversation_id']} has no summary yet.\n"
    if shown["held"] is not None:
        lines.append("`ctxchat summary accept` puts it in force; `reject` deletes it.")
    elif shown["in_force"] is not None and _found(shown["in_force"]):
        lines.append("`ctxchat summary keep` keeps it as it is (plans no longer flag it).")
    return "\n".join(lines) + "\n"


def _found(result: dict[str, Any]) -> str:
    """What a version's check found, in words ("" for nothing or once reviewed)."""
    version = result["version"]
    if not version["flagged"] and not version["waiting"]:
        return ""
    from ctxchat.core.summary_loss import LostDetail

    lost = [LostDetail.from_dict(item) for item in result["lost"]]
    return what_it_lost(lost, version["faults"], shown=len(lost))
