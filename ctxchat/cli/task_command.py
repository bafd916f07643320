"""`ctxchat task [set|add|done|reopen|rm|clear]`: show or change the conversation's task state."""

from __future__ import annotations

import argparse
from typing import Any

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect
from ctxchat.cli.common import make_session, print_json, require_conversation, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import write_out
from ctxchat.core.budget import Layer
from ctxchat.core.task import TaskError, TaskItem, step_line


def task_command(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        conversation = require_conversation(space, options)
        session = make_session(space, options, conversation, connect=Connect.NO)
        try:
            _change(session, args)
        except TaskError as error:
            raise CliError(str(error), EXIT_USAGE) from None
        shown = _shown(session)
    if getattr(args, "json", False):
        print_json(shown)
    else:
        write_out(_text(shown))
    return 0


def _change(session: ChatSession, args: argparse.Namespace) -> None:
    book, action = session.task_book, args.task_command
    if action == "set":
        book.set_goal(args.text)
    elif action == "add":
        book.add_step(args.text)
    elif action in ("done", "reopen"):
        book.mark_done(args.number, done=action == "done")
    elif action == "rm":
        book.remove_step(args.number)
    elif action == "clear":
        book.clear()


def _shown(session: ChatSession) -> dict[str, Any]:
    """The task and what the next request sends of it."""
    task = session.task()
    layer = session.plan(None).layer(Layer.TASK)
    return {
        "conversation_id": session.conversation_id,
        "goal": task.goal,
        "steps": [
            {"number": number, "text": item.text, "done": item.done}
            for number, item in enumerate(task.items, 1)
        ],
        "tokens": layer.tokens,
        "budget": layer.budget,
        "share": layer.share,
        "left_out": [{"ref": o.ref, "detail": o.detail} for o in layer.left_out],
    }


def _text(shown: dict[str, Any]) -> str:
    if not shown["goal"] and not shown["steps"]:
        return (
            f"Conversation {shown['conversation_id']} has no task yet: "
            '`ctxchat task set "…"` gives it a goal, `ctxchat task add "…"` a step.\n'
        )
    lines = [f"Task of conversation {shown['conversation_id']}:"]
    if shown["goal"]:
        lines.append(f"Goal: {shown['goal']}")
    lines.extend(
        "  " + step_line(s["number"], TaskItem(s["text"], s["done"])).rstrip("\n")
        for s in shown["steps"]
    )
    sent = f"{shown['tokens']:,} tokens in the next request"
    lines.append(f"{sent} (task budget {shown['budget']:,}, {shown['share']:.0%}).")
    lines.extend(f"Left out: {o['ref']} ({o['detail']})" for o in shown["left_out"])
    return "\n".join(lines) + "\n"
