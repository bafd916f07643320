"""ChatGPT data exports made for tests, shaped as published descriptions of
`conversations.json` show them (a tree of nodes in `mapping`, the node shown last in
`current_node`, hidden system nodes, `weight` 0, tools, thoughts and images). Made-up text."""

from __future__ import annotations

from typing import Any

START = 1_700_000_000.0


class ChatGPTConversation:
    """Builds one conversation node by node: `add` hangs a node under `parent`."""

    def __init__(self, conversation_id: str, title: str) -> None:
        self.id = conversation_id
        self.title = title
        self.mapping: dict[str, dict[str, Any]] = {
            "root": {"id": "root", "message": None, "parent": None, "children": []}
        }
        self.current: str | None = None
        self.clock = START

    def add(
        self,
        node: str,
        parent: str,
        role: str,
        content: dict[str, Any] | None,
        *,
        name: str | None = None,
        recipient: str = "all",
        weight: float = 1.0,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        self.clock += 10
        message = None
        if content is not None:
            message = {
                "id": node,
                "author": {"role": role, "name": name, "metadata": {}},
                "create_time": self.clock,
                "update_time": None,
                "content": content,
                "status": "finished_successfully",
                "end_turn": True if role == "assistant" else None,
                "weight": weight,
                "metadata": metadata or {},
                "recipient": recipient,
                "channel": None,
            }
        self.mapping[node] = {"id": node, "message": message, "parent": parent, "children": []}
        self.mapping[parent]["children"].append(node)
        return node

    def say(self, node: str, parent: str, role: str, text: str, **more: Any) -> str:
        return self.add(node, parent, role, {"content_type": "text", "parts": [text]}, **more)

    def export(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "create_time": START,
            "update_time": self.clock,
            "mapping": self.mapping,
            "moderation_results": [],
            "current_node": self.current,
            "plugin_ids": None,
            "conversation_id": self.id,
            "conversation_template_id": None,
            "gizmo_id": None,
            "is_archived": False,
            "safe_urls": [],
            "default_model_slug": "gpt-4o",
            "id": self.id,
        }


def trip() -> dict[str, Any]:
    """Every awkward case in one conversation:

    root (no message) → hidden system node (weight 0) → custom instructions → question 1
      ├ "Go in winter." (the answer before a regenerate)
      └ "Go in summer." → question 2 (text and an image)
          ├ thoughts → code for python → its output → "Pack layers."   ← current node
          │                                         └ "Pack a raincoat." (regenerated)
          ├ a deleted node (no message) → a node the model never saw (weight 0)
          └ an edited question 2 → "Try brunost."   (a branch of its own)
    """
    chat = ChatGPTConversation("conv-trip", "Trip to Oslo")
    chat.add(
        "system",
        "root",
        "system",
        {"content_type": "text", "parts": [""]},
        weight=0.0,
        metadata={"is_visually_hidden_from_conversation": True},
    )
    chat.add(
        "instructions",
        "system",
        "user",
        {
            "content_type": "user_editable_context",
            "user_profile": "I live in Bergen.",
            "user_instructions": "Be brief.",
        },
        metadata={"is_visually_hidden_from_conversation": True, "is_user_system_message": True},
    )
    chat.say("q1", "instructions", "user", "When should I visit Oslo?")
    chat.say("winter", "q1", "assistant", "Go in winter.", metadata={"model_slug": "gpt-4o"})
    chat.say("summer", "q1", "assistant", "Go in summer.", metadata={"model_slug": "gpt-4o"})
    chat.add(
        "q2",
        "summer",
        "user",
        {
            "content_type": "multimodal_text",
            "parts": [
                {
                    "content_type": "image_asset_pointer",
                    "asset_pointer": "file-service://file-abc123",
                    "size_bytes": 48_029,
                    "width": 800,
                    "height": 600,
                    "fovea": None,
                    "metadata": None,
                },
                "What should I pack, judging by this photo?",
            ],
        },
        metadata={
            "attachments": [{"id": "file-abc123", "name": "street.jpg", "mime_type": "image/jpeg"}]
        },
    )
    chat.add(
        "thinking",
        "q2",
        "assistant",
        {
            "content_type": "thoughts",
            "thoughts": [{"summary": "Weather", "content": "Oslo is rainy."}],
        },
        metadata={"model_slug": "o3"},
    )
    chat.add(
        "recap",
        "thinking",
        "assistant",
        {"content_type": "reasoning_recap", "content": "Thought for 4 seconds"},
        metadata={"model_slug": "o3"},
    )
    chat.add(
        "code",
        "recap",
        "assistant",
        {"content_type": "code", "language": "python", "text": "print(6 * 7)"},
        recipient="python",
        metadata={"model_slug": "o3"},
    )
    chat.add(
        "output",
        "code",
        "tool",
        {"content_type": "execution_output", "text": "42"},
        name="python",
    )
    chat.say("layers", "output", "assistant", "Pack layers.", metadata={"model_slug": "o3"})
    chat.say("raincoat", "output", "assistant", "Pack a raincoat.", metadata={"model_slug": "o3"})
    chat.add("deleted", "q2", "assistant", None)
    chat.say("unseen", "deleted", "user", "A question the model never saw.", weight=0.0)
    chat.say("q2-edited", "summer", "user", "What should I eat there?")
    chat.say("brunost", "q2-edited", "assistant", "Try brunost.", metadata={"model_slug": "gpt-4o"})
    chat.current = "layers"
    return chat.export()


def short(conversation_id: str, question: str, answer: str) -> dict[str, Any]:
    """A plain conversation of one question and its answer."""
    chat = ChatGPTConversation(conversation_id, question)
    chat.say("q", "root", "user", question)
    chat.current = chat.say("a", "q", "assistant", answer, metadata={"model_slug": "gpt-4o-mini"})
    return chat.export()


def research() -> dict[str, Any]:
    """Browsing, a quote, a spoken question, an image made by a tool and a PDF attached:

    question (report.pdf attached) → a search sent to the browser → what it found → a quote
    from a page → the answer → a spoken question (its transcript and the audio) → a prompt
    sent to the image tool → the image it made → the answer   ← current node
    """
    chat = ChatGPTConversation("conv-research", "Fjord research")
    chat.say(
        "ask",
        "root",
        "user",
        "Find me a source on fjords.",
        metadata={"attachments": [{"name": "report.pdf", "mime_type": "application/pdf"}]},
    )
    chat.say("search", "ask", "assistant", 'search("fjords")', recipient="browser")
    chat.add(
        "results",
        "search",
        "tool",
        {"content_type": "tether_browsing_display", "result": "1. Fjords (example.org)"},
        name="browser",
    )
    chat.add(
        "quote",
        "results",
        "tool",
        {
            "content_type": "tether_quote",
            "url": "https://example.org/fjords",
            "domain": "example.org",
            "title": "Fjords",
            "text": "A fjord is a long, narrow inlet.",
        },
        name="browser",
    )
    chat.say("found", "quote", "assistant", "Here is what I found.")
    chat.add(
        "spoken",
        "found",
        "user",
        {
            "content_type": "multimodal_text",
            "parts": [
                {"content_type": "audio_transcription", "text": "Draw one for me."},
                {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_1"},
            ],
        },
    )
    chat.say(
        "prompt", "spoken", "assistant", '{"prompt": "A fjord at dawn"}', recipient="dalle.text2im"
    )
    chat.add(
        "image",
        "prompt",
        "tool",
        {
            "content_type": "multimodal_text",
            "parts": [
                {
                    "content_type": "image_asset_pointer",
                    "asset_pointer": "sediment://file_2",
                    "width": 1024,
                    "height": 1024,
                    "metadata": {"dalle": {"prompt": "A fjord at dawn", "seed": 7}},
                }
            ],
        },
        name="dalle.text2im",
    )
    chat.current = chat.say("done", "image", "assistant", "Here is your picture.")
    return chat.export()
