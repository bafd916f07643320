"""Open WebUI's chat export (Settings → Chats → Export, or one chat's "Export chat (.json)"):
a list of chats, each with its `chat`: the messages by id in `history.messages` (each naming
its `parentId` and `childrenIds`) and the one shown last in `history.currentId`; older
exports have only the list in `chat.messages`.

Answers of several models to one message, and regenerated ones, are other answers (variants);
a reasoning model's `<details type="reasoning">` block becomes the reply's reasoning; images
and files become placeholders; a reply that failed keeps its error.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ctxchat.core.history import MessageStatus
from ctxchat.store.importers.branches import About, tree_conversations
from ctxchat.store.importers.fields import (
    HistoryFormatError,
    check,
    child,
    epoch,
    maybe,
    quoted,
    text_of,
)
from ctxchat.store.importers.labels import LABELS
from ctxchat.store.importers.pieces import Piece, join, placeholder
from ctxchat.store.importers.records import ImportedConversation
from ctxchat.store.importers.tree import ConversationTree, TreeNode

LABEL = LABELS["open-webui"]
CHANGE = f"another answer in {LABEL}"
_ROLES = frozenset({"user", "assistant", "system"})
_REASONING = re.compile(r'<details\s+type="reasoning"[^>]*>(.*?)</details>\s*', re.DOTALL)
_SUMMARY = re.compile(r"<summary>.*?</summary>", re.DOTALL)


def is_chat(item: Mapping[str, Any]) -> bool:
    """Whether an item looks like one of Open WebUI's chats (for recognising the file)."""
    chat = item.get("chat")
    body = chat if isinstance(chat, dict) else item
    return isinstance(body.get("history"), dict) or (
        isinstance(chat, dict) and isinstance(chat.get("messages"), list)
    )


def conversations(items: Iterable[Any]) -> Iterator[ImportedConversation]:
    for number, item in enumerate(items, 1):
        yield from _conversation(item, number)


def _conversation(item: Any, number: int) -> Iterator[ImportedConversation]:
    place = f"chat {number}"
    record = check(item, dict, place)
    chat = record.get("chat")
    body = check(chat, dict, child(place, "chat")) if chat is not None else record
    title = text_of(record.get("title"), child(place, "title")) or text_of(
        body.get("title"), child(place, "chat.title")
    )
    if title:
        place = f"{place} {quoted(title)}"
    origin_id = maybe(record, "id", str, place) or maybe(body, "id", str, child(place, "chat"))
    if not origin_id:
        raise HistoryFormatError(f"{place}: it has no 'id'")
    created = epoch(record.get("created_at"), child(place, "created_at")) or epoch(
        body.get("timestamp"), child(place, "chat.timestamp")
    )
    updated = epoch(record.get("updated_at"), child(place, "updated_at"))
    models = body.get("models")
    model = (
        models[0] if isinstance(models, list) and models and isinstance(models[0], str) else None
    )
    history = maybe(body, "history", dict, child(place, "chat"))
    nodes: dict[str, TreeNode] = {}
    pieces: dict[str, Piece | None] = {}
    current: str | None = None
    if history is not None:
        where = child(place, "chat.history")
        messages = maybe(history, "messages", dict, where) or {}
        current = maybe(history, "currentId", str, where)
        for key, message in messages.items():
            at = f"{where}.messages[{key!r}]"
            message = check(message, dict, at)
            piece = _piece(message, at)
            pieces[key] = piece
            children = check(message.get("childrenIds") or [], list, f"{at}.childrenIds")
            nodes[key] = TreeNode(
                maybe(message, "parentId", str, at),
                tuple(child for child in children if isinstance(child, str)),
                piece is not None and piece.role == "user",
                (piece.created_at if piece else None) or 0.0,
            )
    else:
        listed = maybe(body, "messages", list, child(place, "chat")) or []
        previous: str | None = None
        for index, message in enumerate(listed):
            at = child(place, f"chat.messages[{index}]")
            message = check(message, dict, at)
            key = f"#{index}"
            piece = _piece(message, at)
            pieces[key] = piece
            nodes[key] = TreeNode(
                previous, (), piece is not None and piece.role == "user", float(index)
            )
            if previous is not None:
                old = nodes[previous]
                nodes[previous] = TreeNode(old.parent, (key,), old.user, old.created)
            previous = key
    tree = ConversationTree(nodes, place)
    yield from tree_conversations(
        tree, pieces, current, About(origin_id, title, created, updated, model, CHANGE)
    )


def _piece(message: Mapping[str, Any], place: str) -> Piece | None:
    role = maybe(message, "role", str, place)
    if role is None:
        raise HistoryFormatError(f"{place}: 'role' is missing")
    if role not in _ROLES:
        raise HistoryFormatError(
            f"{child(place, 'role')}: {role!r} is not user, assistant or system"
        )
    text = _content(message.get("content"), child(place, "content")) or _output(
        message.get("output")
    )
    reasoning = ""
    if role == "assistant":
        text, reasoning = _reasoning(text)
    files = _files(message, place)
    text = join(files, text) if role == "user" else join(text, files)
    created = epoch(message.get("timestamp"), child(place, "timestamp"))
    model = maybe(message, "model", str, place) if role == "assistant" else None
    error = message.get("error")
    if role == "assistant" and error not in (None, False, {}):
        said = error.get("content") if isinstance(error, dict) else error
        detail = said if isinstance(said, str) and said.strip() else "the reply failed"
        return Piece("assistant", text, reasoning, created, model, MessageStatus.FAILED, detail)
    usage = _usage(message)
    return Piece(
        role, text, reasoning, created, model, prompt_tokens=usage[0], completion_tokens=usage[1]
    )


def _content(content: Any, place: str) -> str:
    """A message's text: a string, or a list of parts (text, and images as placeholders)."""
    if content is None or isinstance(content, str):
        return content or ""
    parts = check(content, list, place)
    texts = []
    for at, part in enumerate(parts):
        if isinstance(part, str):
            texts.append(part)
            continue
        part = check(part, dict, f"{place}[{at}]")
        if isinstance(part.get("text"), str):
            texts.append(str(part["text"]))
        else:
            kind = str(part.get("type") or "part")
            texts.append(placeholder("image" if "image" in kind else kind.replace("_", " ")))
    return "\n".join(texts)


def _output(output: Any) -> str:
    """The text of a reply newer versions keep as output items (`"type": "message"`, its
    parts' text) rather than as its content."""
    if not isinstance(output, list):
        return ""
    texts = []
    for item in output:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        parts = item.get("content")
        if isinstance(parts, list):
            texts.append(
                "".join(
                    str(part["text"])
                    for part in parts
                    if isinstance(part, dict) and isinstance(part.get("text"), str)
                )
            )
    return "\n".join(text for text in texts if text.strip())


def _reasoning(text: str) -> tuple[str, str]:
    """The reply without its reasoning blocks, and what they said."""
    thoughts = []
    for found in _REASONING.finditer(text):
        # Open WebUI writes the thinking as a quote, escaped as HTML inside the block.
        inside = html.unescape(_SUMMARY.sub("", found.group(1)))
        lines = [line.removeprefix(">").removeprefix(" ") for line in inside.splitlines()]
        thoughts.append("\n".join(lines).strip())
    return _REASONING.sub("", text).strip(), join(*thoughts)


def _files(message: Mapping[str, Any], place: str) -> str:
    lines = []
    for file in maybe(message, "files", list, place) or []:
        if not isinstance(file, dict):
            continue
        kind = str(file.get("type") or "file")
        name = file.get("name")
        if not isinstance(name, str) and isinstance(file.get("file"), dict):
            name = file["file"].get("filename")
        name = name if isinstance(name, str) else ""
        lines.append(placeholder("image" if kind == "image" else "file", name))
    return "\n".join(lines)


def _usage(message: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """The server's token counts, as OpenAI-compatible servers or Ollama report them."""
    for key in ("usage", "info"):
        usage = message.get(key)
        if isinstance(usage, dict) and isinstance(usage.get("usage"), dict):
            usage = usage["usage"]
        if not isinstance(usage, dict):
            continue
        prompt = usage.get("prompt_tokens", usage.get("prompt_eval_count"))
        completion = usage.get("completion_tokens", usage.get("eval_count"))
        if isinstance(prompt, int) or isinstance(completion, int):
            return (
                prompt if isinstance(prompt, int) else None,
                completion if isinstance(completion, int) else None,
            )
    return None, None
