"""Claude.ai's data export (`conversations.json`): a list of conversations, each with its
`chat_messages` (`sender` human or assistant, `text`, and `content` blocks).

Messages that name their parent (`parent_message_uuid`) form a tree, edits and retries
branching it; the branch to `current_leaf_message_uuid` (else the newest message) is the
conversation, and the rest is kept as the tree module says. Without parents the messages
are one line in the order given. Thinking becomes the reply's reasoning; tool calls and
results become part of the reply; an attached file's extracted text stays with the message
it came with; files without text (images) become placeholders. A message with nothing in it
is left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ctxchat.store.importers.branches import About, tree_conversations
from ctxchat.store.importers.fields import (
    HistoryFormatError,
    check,
    child,
    epoch,
    maybe,
    need,
    quoted,
    text_of,
)
from ctxchat.store.importers.labels import LABELS
from ctxchat.store.importers.pieces import (
    Piece,
    fenced,
    join,
    placeholder,
    tool_call,
    tool_output,
)
from ctxchat.store.importers.records import ImportedConversation
from ctxchat.store.importers.tree import ConversationTree, TreeNode

LABEL = LABELS["claude"]
CHANGE = f"another answer in {LABEL}"
_ROLES = {"human": "user", "user": "user", "assistant": "assistant"}


def conversations(items: Iterable[Any]) -> Iterator[ImportedConversation]:
    for number, item in enumerate(items, 1):
        yield from _conversation(item, number)


def _conversation(item: Any, number: int) -> Iterator[ImportedConversation]:
    place = f"conversation {number}"
    data = check(item, dict, place)
    title = text_of(data.get("name"), child(place, "name"))
    if title:
        place = f"{place} {quoted(title)}"
    origin_id = need(data, "uuid", str, place)
    created = epoch(data.get("created_at"), child(place, "created_at"))
    updated = epoch(data.get("updated_at"), child(place, "updated_at"))
    model = maybe(data, "model", str, place)
    listed = need(data, "chat_messages", list, place)
    ids: list[str] = []
    pieces: dict[str, Piece | None] = {}
    parents: dict[str, str | None] = {}
    times: dict[str, float | None] = {}
    for at, message in enumerate(listed):
        where = f"{place}: chat_messages[{at}]"
        message = check(message, dict, where)
        key = maybe(message, "uuid", str, where) or f"#{at}"
        ids.append(key)
        pieces[key] = _piece(message, where, model)
        parents[key] = maybe(message, "parent_message_uuid", str, where)
        times[key] = epoch(message.get("created_at"), f"{where}.created_at")
    branched = any(parent is not None for parent in parents.values())
    nodes: dict[str, TreeNode] = {}
    for position, key in enumerate(ids):
        piece = pieces[key]
        parent = parents[key] if branched else (ids[position - 1] if position else None)
        moment = times[key]
        nodes[key] = TreeNode(
            parent,
            (),
            piece is not None and piece.role == "user",
            float(position) if moment is None else moment,
        )
    # Children in the order the export lists them.
    children: dict[str, list[str]] = {}
    for key in ids:
        parent = nodes[key].parent
        if parent is not None:
            children.setdefault(parent, []).append(key)
    nodes = {
        key: TreeNode(node.parent, tuple(children.get(key, ())), node.user, node.created)
        for key, node in nodes.items()
    }
    tree = ConversationTree(nodes, place)
    current = maybe(data, "current_leaf_message_uuid", str, place)
    yield from tree_conversations(
        tree, pieces, current, About(origin_id, title, created, updated, model, CHANGE)
    )


def _piece(message: Mapping[str, Any], place: str, model: str | None) -> Piece | None:
    sender = need(message, "sender", str, place)
    role = _ROLES.get(sender)
    if role is None:
        raise HistoryFormatError(
            f"{child(place, 'sender')}: {sender!r} is neither human nor assistant"
        )
    created = epoch(message.get("created_at"), child(place, "created_at"))
    blocks = maybe(message, "content", list, place) or []
    texts: list[str] = []
    thinking: list[str] = []
    for at, block in enumerate(blocks):
        text, thought = _block(
            check(block, dict, child(place, f"content[{at}]")), child(place, f"content[{at}]")
        )
        texts.append(text)
        thinking.append(thought)
    text = join(*texts) or text_of(message.get("text"), child(place, "text"))
    files = _files(message, place)
    piece_text = join(files, text) if role == "user" else join(text, files)
    if not piece_text.strip() and not any(t.strip() for t in thinking):
        return None
    return Piece(role, piece_text, join(*thinking), created, model if role == "assistant" else None)


def _block(block: Mapping[str, Any], place: str) -> tuple[str, str]:
    """A content block's text and its thinking."""
    kind = maybe(block, "type", str, place) or "text"
    if kind == "text":
        return text_of(block.get("text"), child(place, "text")), ""
    if kind == "thinking":
        return "", text_of(block.get("thinking"), child(place, "thinking"))
    if kind == "tool_use":
        name = text_of(block.get("name"), child(place, "name"))
        return tool_call(name, block.get("input") if block.get("input") is not None else {}), ""
    if kind == "tool_result":
        name = text_of(block.get("name"), child(place, "name"))
        return tool_output(name, _result(block.get("content"), child(place, "content"))), ""
    if isinstance(block.get("text"), str):
        return str(block["text"]), ""
    return placeholder(kind.replace("_", " ")), ""


def _result(content: Any, place: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    items = check(content, list, place)
    texts = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(join(str(item.get("title") or ""), str(item["text"])))
        elif isinstance(item, dict):
            texts.append(placeholder(str(item.get("type") or "result")))
        else:
            texts.append(json.dumps(item, ensure_ascii=False))
    return "\n".join(texts)


def _files(message: Mapping[str, Any], place: str) -> str:
    """Attachments with their extracted text; files without text as placeholders."""
    kept: list[str] = []
    for at, attachment in enumerate(maybe(message, "attachments", list, place) or []):
        where = child(place, f"attachments[{at}]")
        attachment = check(attachment, dict, where)
        name = text_of(attachment.get("file_name"), f"{where}.file_name")
        extracted = text_of(attachment.get("extracted_content"), f"{where}.extracted_content")
        if extracted.strip():
            kept.append(f"[attached file {name}]\n{fenced(extracted)}")
        else:
            kept.append(placeholder("file", name))
    for key in ("files", "files_v2"):
        for at, file in enumerate(maybe(message, key, list, place) or []):
            file = check(file, dict, child(place, f"{key}[{at}]"))
            name = text_of(file.get("file_name"), child(place, f"{key}[{at}].file_name"))
            kind = "image" if file.get("file_kind") == "image" else "file"
            line = placeholder(kind, name)
            if line not in kept:
                kept.append(line)
    return "\n".join(kept)
