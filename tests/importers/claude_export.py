"""Claude.ai data exports made for tests, shaped as published descriptions of its
`conversations.json` show them (`chat_messages` with `sender`, `text`, `content` blocks,
`attachments` and `files`; `parent_message_uuid` where messages branch). Made-up text."""

from __future__ import annotations

from typing import Any

ROOT = "00000000-0000-4000-8000-000000000000"


def message(
    uuid: str,
    sender: str,
    text: str,
    *,
    parent: str | None = None,
    minute: int = 0,
    content: list[dict[str, Any]] | None = None,
    attachments: list[dict[str, Any]] | None = None,
    files: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    when = f"2024-03-01T12:{minute:02d}:00.000000Z"
    data: dict[str, Any] = {
        "uuid": uuid,
        "text": text,
        "content": content
        if content is not None
        else [
            {
                "start_timestamp": when,
                "stop_timestamp": when,
                "type": "text",
                "text": text,
                "citations": [],
            }
        ],
        "sender": sender,
        "created_at": when,
        "updated_at": when,
        "attachments": attachments or [],
        "files": files or [],
    }
    if parent is not None:
        data["parent_message_uuid"] = parent
    return data


def conversation(uuid: str, name: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "uuid": uuid,
        "name": name,
        "created_at": "2024-03-01T12:00:00.000000Z",
        "updated_at": "2024-03-01T13:00:00.000000Z",
        "account": {"uuid": "account-1"},
        "chat_messages": messages,
    }


def recipe() -> dict[str, Any]:
    """A branching conversation with thinking, a tool, an attached file and an image:

    question (with recipe.txt and photo.jpg)
        ├ "Bake it at 180 °C."      (retried: another answer)
        └ "Bake it at 200 °C." (thinking, a web search) → "How long?" → two messages with
          nothing in them → "40 minutes."   (the newest end: the conversation)
    an edited question → "Use rye flour."   (a branch of its own)
    """
    ask = message(
        "q1",
        "human",
        "How hot should the oven be?",
        parent=ROOT,
        attachments=[
            {
                "file_name": "recipe.txt",
                "file_size": 31,
                "file_type": "txt",
                "extracted_content": "Bread: flour, water, salt.",
            }
        ],
        files=[{"file_name": "photo.jpg"}],
    )
    searched: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "Bread usually bakes hot.", "summaries": []},
        {"type": "tool_use", "name": "web_search", "input": {"query": "bread oven temperature"}},
        {
            "type": "tool_result",
            "name": "web_search",
            "content": [{"type": "knowledge", "title": "Baking", "text": "Most breads: 200 °C."}],
            "is_error": False,
        },
        {"type": "text", "text": "Bake it at 200 °C."},
    ]
    return conversation(
        "claude-recipe",
        "Baking bread",
        [
            ask,
            message("a-180", "assistant", "Bake it at 180 °C.", parent="q1", minute=3),
            message("a-200", "assistant", "", parent="q1", minute=4, content=searched),
            message("q2", "human", "How long?", parent="a-200", minute=5),
            message("empty", "assistant", "", parent="q2", minute=6, content=[]),
            message("a2", "human", "", parent="empty", minute=7, content=[]),
            message("forty", "assistant", "40 minutes.", parent="a2", minute=8),
            message("q1-edit", "human", "Which flour should I use?", parent=ROOT, minute=1),
            message("rye", "assistant", "Use rye flour.", parent="q1-edit", minute=2),
        ],
    )


def linear() -> dict[str, Any]:
    """An older export's conversation: no parents, one line in the order given."""
    return conversation(
        "claude-linear",
        "Greeting",
        [
            message("m1", "human", "Hello", minute=1),
            message("m2", "assistant", "Hello! How can I help?", minute=2),
        ],
    )
