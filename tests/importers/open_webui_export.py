"""Open WebUI chat exports made for tests, shaped as its own code writes them (a list of chat
records, each with `chat.history.messages` by id, `parentId`, `childrenIds` and
`currentId`; older chats with only `chat.messages`). Made-up text."""

from __future__ import annotations

from typing import Any

START = 1_717_000_000


def node(
    key: str,
    role: str,
    content: str,
    parent: str | None,
    children: list[str],
    offset: int,
    **more: Any,
) -> dict[str, Any]:
    data = {
        "id": key,
        "parentId": parent,
        "childrenIds": children,
        "role": role,
        "content": content,
        "timestamp": START + offset,
    }
    if role == "assistant":
        data.update({"done": True})
    data.update(more)
    return data


def compare() -> dict[str, Any]:
    """One question answered by two models side by side (the second one shown), a reasoning
    model's thinking in its reply, an image on the question, a reply that failed, and usage."""
    messages = {
        "u1": node(
            "u1",
            "user",
            "Name a fjord.",
            None,
            ["a-llama", "a-qwen"],
            0,
            models=["llama3.2", "qwen3"],
            files=[{"type": "image", "url": "data:image/png;base64,iVBORw0KGgo="}],
        ),
        "a-llama": node(
            "a-llama", "assistant", "Geirangerfjord.", "u1", [], 5, model="llama3.2", modelIdx=0
        ),
        "a-qwen": node(
            "a-qwen",
            "assistant",
            '<details type="reasoning" done="true" duration="2">\n'
            "<summary>Thought for 2 seconds</summary>\n"
            "&gt; Norway has many fjords.\n> Pick a famous one.\n</details>\n"
            "Sognefjord.",
            "u1",
            ["u2"],
            6,
            model="qwen3",
            modelIdx=1,
            usage={"prompt_tokens": 12, "completion_tokens": 30, "total_tokens": 42},
        ),
        "u2": node("u2", "user", "How deep is it?", "a-qwen", ["a-fail"], 20, models=["qwen3"]),
        "a-fail": node(
            "a-fail",
            "assistant",
            "",
            "u2",
            [],
            21,
            model="qwen3",
            error={"content": "Ollama: model unloaded"},
        ),
    }
    return {
        "id": "owui-compare",
        "user_id": "user-1",
        "title": "Fjords",
        "chat": {
            "id": "",
            "title": "Fjords",
            "models": ["llama3.2", "qwen3"],
            "params": {},
            "history": {"messages": messages, "currentId": "a-fail"},
            "messages": list(messages.values()),
            "tags": [],
            "timestamp": (START - 10) * 1000,
            "files": [],
        },
        "updated_at": START + 21,
        "created_at": START - 10,
        "share_id": None,
        "archived": False,
        "pinned": False,
        "meta": {},
        "folder_id": None,
    }


def with_output() -> dict[str, Any]:
    """A chat from a newer version: the reply's text in its `output` items, not `content`."""
    chat = compare()
    chat["id"] = "owui-output"
    messages = chat["chat"]["history"]["messages"]
    messages["a-fail"].pop("error")
    messages["a-fail"]["output"] = [
        {"type": "reasoning", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "About 1,300 metres."}],
        },
    ]
    return chat


def older() -> dict[str, Any]:
    """A chat from before `history`: only the list of messages."""
    return {
        "id": "owui-older",
        "user_id": "user-1",
        "title": "Old chat",
        "chat": {
            "title": "Old chat",
            "models": ["mistral"],
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."},
            ],
            "timestamp": START * 1000,
        },
        "created_at": START,
        "updated_at": START + 60,
    }
