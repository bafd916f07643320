"""What an imported conversation's origin is called where it is shown (light to import: the
conversation list needs only this)."""

from __future__ import annotations

LABELS = {
    "chatgpt": "ChatGPT",
    "claude": "Claude.ai",
    "llm": "llm",
    "open-webui": "Open WebUI",
}


def origin_label(origin: str | None) -> str:
    """`ChatGPT` for `chatgpt`; "" for a conversation made in ctxchat."""
    if not origin:
        return ""
    return LABELS.get(origin, origin)
