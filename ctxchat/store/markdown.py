"""A conversation export rendered as Markdown, for reading and sharing."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, tzinfo
from typing import Any

from ctxchat.store.records import conversation_name

_ROLE_HEADINGS = {"user": "User", "assistant": "Assistant", "system": "System", "tool": "Tool"}
# A message's own headings go this many levels below its role's (`## User`).
NESTED_LEVELS = 2
_ATX = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


def _when(timestamp: float) -> str:
    return when(timestamp, "%Y-%m-%d %H:%M UTC", UTC)


def when(timestamp: object, form: str, zone: tzinfo | None = None) -> str:
    """`timestamp` (seconds) written in `form`; "?" for a value that is not a time, which a
    database written by an older import may hold: one bad row must not stop a command."""
    try:
        return datetime.fromtimestamp(timestamp, zone).strftime(form)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"


def conversation_markdown(export: dict[str, Any]) -> str:
    """Title, each turn under its role, interrupted, failed and excluded ones marked, the
    task and the attached files (by name), then every summary version (the one in force
    flagged). Takes `Store.export_conversation` output."""
    conversation = export["conversation"]
    title = conversation_name(conversation["id"], conversation["title"])
    lines = [f"# {title}", ""]
    about = [f"Started {_when(conversation['created_at'])}"]
    if conversation["model"]:
        about.append(f"model {conversation['model']}")
    # Absent from exports made before a conversation kept a preset and a system prompt.
    if conversation.get("preset"):
        about.append(f"preset {conversation['preset']}")
    lines += ["*" + ", ".join(about) + ".*", ""]
    own_prompt = conversation.get("system_prompt")
    if own_prompt is not None:
        lines += ["## System prompt", ""]
        lines += [nested(own_prompt.rstrip("\n")) if own_prompt else "*None: no system message.*"]
        lines += [""]

    for message in export["messages"]:
        heading = _ROLE_HEADINGS.get(message["role"], message["role"].title())
        lines += [f"## {heading}", ""]
        if message["content"]:
            lines += [nested(message["content"].rstrip("\n")), ""]
        if message["status"] == "interrupted":
            lines += ["> *Interrupted: the reply was cut off here.*", ""]
        elif message["status"] == "failed":
            error = message["error"] or "no details"
            lines += [f"> **Failed:** {error}", ""]
        elif message["status"] == "streaming":
            lines += ["> *Still being written when exported.*", ""]
        if message.get("excluded"):
            lines += ["> *Left out of the requests by you (kept, not sent).*", ""]

    task = export.get("task") or {}
    if task.get("goal") or task.get("steps"):
        lines += ["---", "", "## Task", ""]
        if task.get("goal"):
            lines += [f"Goal: {task['goal']}", ""]
        lines += [
            f"{number}. [{'done' if step['done'] else 'pending'}] {step['text']}"
            for number, step in enumerate(task.get("steps", ()), 1)
        ]
        lines += [""] if task.get("steps") else []
    attachments = export.get("attachments") or []
    if attachments:
        lines += ["---", "", "## Attached files", ""]
        lines += [
            f"- {a['name']} ({a['tokens']:,} tokens, {a['size']:,} bytes)" for a in attachments
        ]
        lines += [""]

    summaries = export["summaries"]
    if summaries:
        active = conversation["active_summary_version"]
        lines += ["---", "", "## Summary versions", ""]
        for summary in summaries:
            details = [
                f"messages {summary['first_message_id']}–{summary['last_message_id']}",
                summary["strategy"],
            ]
            if summary["model"]:
                details.append(summary["model"])
            details.append(f"{summary['tokens']:,} tokens")
            if summary["edited"]:
                details.append("edited")
            marker = " — in force" if summary["version"] == active else ""
            lines += [f"### v{summary['version']} ({', '.join(details)}){marker}", ""]
            if summary["note"]:
                lines += [f"*{summary['note']}*", ""]
            # Under its `### v2` heading: a summary's own headings go below it.
            lines += [nested(summary["text"].rstrip("\n"), NESTED_LEVELS + 1), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def nested(text: str, levels: int = NESTED_LEVELS) -> str:
    """`text` (Markdown) with its headings `levels` deeper (at most level 6), so a
    message's `## Step 1` sits under its role's `## User` instead of beside it. Code blocks
    are left as they are; underlined (setext) headings become `#` headings."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        underline = _SETEXT.match(line)
        if underline and out and out[-1].strip() and not _ATX.match(out[-1]):
            level = 1 if underline.group(1)[0] == "=" else 2
            out[-1] = "#" * min(6, level + levels) + " " + out[-1].strip()
            continue
        heading = _ATX.match(line)
        if heading:
            indent, hashes = heading.group(1), heading.group(2)
            line = indent + "#" * min(6, len(hashes) + levels) + line[heading.end() :]
        out.append(line)
    return "\n".join(out)


def export_text(export: dict[str, Any], *, markdown: bool) -> str:
    """`Store.export_conversation` output as a file's text: Markdown, or indented JSON."""
    if markdown:
        return conversation_markdown(export)
    return json.dumps(export, ensure_ascii=False, indent=2) + "\n"
