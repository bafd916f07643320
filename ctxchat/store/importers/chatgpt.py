"""ChatGPT's data export (`conversations.json`): a list of conversations, each a tree of nodes
in `mapping` with the node shown last in `current_node`.

What becomes of each node: a message of the user or the model as it reads; a node without a
message (the root), a hidden one (`is_visually_hidden_from_conversation`, the empty system
node at the start) and one the model never saw (`weight` 0) are left out; custom
instructions become a system message; calls to tools (code for the Python tool, a browsing
command, an image prompt), their output and the model's thoughts become part of the reply
they served; images, audio and files become placeholders.
"""

from __future__ import annotations

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

LABEL = LABELS["chatgpt"]
CHANGE = f"another answer in {LABEL}"

_MEDIA = {
    "image_asset_pointer": "image",
    "audio_asset_pointer": "audio",
    "real_time_user_audio_video_asset_pointer": "video",
}


def conversations(items: Iterable[Any]) -> Iterator[ImportedConversation]:
    """Every conversation of the export, branch conversations after the one they branch off."""
    for number, item in enumerate(items, 1):
        yield from _conversation(item, number)


def _conversation(item: Any, number: int) -> Iterator[ImportedConversation]:
    place = f"conversation {number}"
    data = check(item, dict, place)
    title = text_of(data.get("title"), child(place, "title"))
    if title:
        place = f"{place} {quoted(title)}"
    mapping = need(data, "mapping", dict, place)
    origin_id = maybe(data, "conversation_id", str, place) or maybe(data, "id", str, place)
    if not origin_id:
        raise HistoryFormatError(f"{place}: it has no 'id' or 'conversation_id'")
    created = epoch(data.get("create_time"), child(place, "create_time"))
    updated = epoch(data.get("update_time"), child(place, "update_time"))
    nodes: dict[str, TreeNode] = {}
    pieces: dict[str, Piece | None] = {}
    for key, node in mapping.items():
        where = f"{place}: mapping[{key!r}]"
        node = check(node, dict, where)
        children = check(node.get("children") or [], list, f"{where}.children")
        for at, kid in enumerate(children):
            check(kid, str, f"{where}.children[{at}]")
        message = node.get("message")
        piece = None if message is None else _piece(check(message, dict, f"{where}.message"), where)
        pieces[key] = piece
        user = piece is not None and piece.role == "user"
        moment = (piece.created_at if piece else None) or 0.0
        nodes[key] = TreeNode(maybe(node, "parent", str, where), tuple(children), user, moment)
    tree = ConversationTree(nodes, place)
    current = maybe(data, "current_node", str, place)
    model = maybe(data, "default_model_slug", str, place)
    yield from tree_conversations(
        tree, pieces, current, About(origin_id, title, created, updated, model, CHANGE)
    )


def _piece(message: Mapping[str, Any], place: str) -> Piece | None:
    """What a node's message holds, or None for one left out."""
    place = child(place, "message")
    author = need(message, "author", dict, place)
    role = need(author, "role", str, child(place, "author"))
    metadata = maybe(message, "metadata", dict, place) or {}
    content = maybe(message, "content", dict, place) or {}
    kind = maybe(content, "content_type", str, child(place, "content")) or "text"
    weight = message.get("weight")
    created = epoch(message.get("create_time"), child(place, "create_time"))
    if kind == "user_editable_context" or metadata.get("is_user_system_message") is True:
        text = _instructions(content, metadata)
        return Piece("system", text, created_at=created) if text else None
    if weight == 0 or metadata.get("is_visually_hidden_from_conversation") is True:
        return None
    text = _text(content, kind, child(place, "content"))
    if role == "system":
        return Piece("system", text, created_at=created) if text.strip() else None
    if role == "user":
        files = _attachments(metadata, child(place, "metadata"))
        return Piece("user", join(text, files), created_at=created)
    model = maybe(metadata, "model_slug", str, child(place, "metadata"))
    if role == "assistant":
        if kind == "thoughts":
            return Piece(
                "assistant", "", _thoughts(content, child(place, "content")), created, model
            )
        if kind == "reasoning_recap" or kind == "model_editable_context":
            return None
        recipient = maybe(message, "recipient", str, place) or "all"
        if recipient != "all":
            language = maybe(content, "language", str, child(place, "content")) or ""
            if kind == "code" and language not in ("", "unknown", "json"):
                text = f"[called {recipient}]\n{fenced(text, language)}"
            else:
                text = tool_call(recipient, text)
        elif kind == "code":
            text = fenced(text, maybe(content, "language", str, child(place, "content")) or "")
        return Piece("assistant", text, created_at=created, model=model, status=_status(metadata))
    name = maybe(author, "name", str, child(place, "author")) or "tool"
    if kind in ("execution_output", "text", "code", "tether_browsing_display") and text.strip():
        text = tool_output(name, text)
    return Piece("tool", text, created_at=created, model=model)


def _text(content: Mapping[str, Any], kind: str, place: str) -> str:
    """The text of a message's content, whatever its kind; a placeholder for what is not."""
    if not content:
        return ""
    parts = content.get("parts")
    if parts is not None:
        parts = check(parts, list, child(place, "parts"))
        return "\n".join(_part(part, child(place, f"parts[{at}]")) for at, part in enumerate(parts))
    if kind == "tether_browsing_display":
        return text_of(content.get("result"), child(place, "result")) or text_of(
            content.get("summary"), child(place, "summary")
        )
    if kind == "tether_quote":
        title = text_of(content.get("title"), child(place, "title"))
        source = text_of(content.get("url"), child(place, "url")) or text_of(
            content.get("domain"), child(place, "domain")
        )
        quote = text_of(content.get("text"), child(place, "text"))
        lines = "\n".join(f"> {line}" for line in quote.splitlines())
        return join(f"[quoted from {title} {source}]".replace("  ", " "), lines)
    if kind == "system_error":
        name = text_of(content.get("name"), child(place, "name"))
        return (
            f"[error{' ' + name if name else ''}] {text_of(content.get('text'), f'{place}.text')}"
        )
    if isinstance(content.get("text"), str):
        return str(content["text"])
    return placeholder(kind.replace("_", " "))


def _part(part: Any, place: str) -> str:
    if part is None:
        return ""
    if isinstance(part, str):
        return part
    part = check(part, dict, place)
    kind = maybe(part, "content_type", str, place) or "part"
    if kind == "audio_transcription":
        return text_of(part.get("text"), child(place, "text"))
    if isinstance(part.get("text"), str) and kind not in _MEDIA:
        return str(part["text"])
    detail = ""
    width, height = part.get("width"), part.get("height")
    if isinstance(width, int) and isinstance(height, int):
        detail = f"{width}×{height}"
    dalle = (
        (part.get("metadata") or {}).get("dalle")
        if isinstance(part.get("metadata"), dict)
        else None
    )
    if isinstance(dalle, dict) and isinstance(dalle.get("prompt"), str):
        detail = join(detail, f"made from the prompt “{dalle['prompt']}”").replace("\n\n", ", ")
    return placeholder(_MEDIA.get(kind, kind.replace("_", " ")), detail)


def _attachments(metadata: Mapping[str, Any], place: str) -> str:
    """Files the user attached, as placeholders (images show as their own parts)."""
    files = maybe(metadata, "attachments", list, place) or []
    lines = []
    for at, file in enumerate(files):
        file = check(file, dict, child(place, f"attachments[{at}]"))
        mime = file.get("mime_type") if isinstance(file.get("mime_type"), str) else ""
        if str(mime).startswith("image/"):
            continue
        name = file.get("name") if isinstance(file.get("name"), str) else ""
        lines.append(placeholder("file", str(name)))
    return "\n".join(lines)


def _instructions(content: Mapping[str, Any], metadata: Mapping[str, Any]) -> str:
    """The user's custom instructions, from wherever this export keeps them."""
    found: list[str] = []
    context = metadata.get("user_context_message_data")
    sources: list[Mapping[str, Any]] = [context] if isinstance(context, dict) else []
    sources.append(content)
    for source in sources:
        for key, label in (
            ("about_user_message", "About me"),
            ("user_profile", "About me"),
            ("about_model_message", "How to respond"),
            ("user_instructions", "How to respond"),
        ):
            value = source.get(key)
            if isinstance(value, str) and value.strip() and value.strip() not in found:
                found.append(f"{label}: {value.strip()}")
    return "Custom instructions\n" + "\n".join(found) if found else ""


def _thoughts(content: Mapping[str, Any], place: str) -> str:
    thoughts = content.get("thoughts")
    if isinstance(thoughts, str):
        return thoughts
    thoughts = check(thoughts or [], list, child(place, "thoughts"))
    texts = []
    for thought in thoughts:
        if isinstance(thought, dict):
            texts.append(
                join(
                    *(
                        str(thought[k])
                        for k in ("summary", "content")
                        if isinstance(thought.get(k), str)
                    )
                )
            )
    return join(*texts)


def _status(metadata: Mapping[str, Any]) -> MessageStatus:
    details = metadata.get("finish_details")
    if isinstance(details, dict) and details.get("type") == "interrupted":
        return MessageStatus.INTERRUPTED
    return MessageStatus.COMPLETE
