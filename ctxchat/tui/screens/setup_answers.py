"""First-run setup's words: the server kinds, and what a typed URL or key choice means."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from ctxchat.model.discovery import UrlAnswer
from ctxchat.redaction import shown_url
from ctxchat.tui.text import clean, content, plain
from ctxchat.tui.views import ServerView

SERVER_NAMES = {
    "ollama": "Ollama",
    "lmstudio": "LM Studio",
    "llama.cpp": "llama.cpp server",
    "vllm": "vLLM",
    "openai-compatible": "OpenAI-compatible server",
}


def server_name(kind: str) -> str:
    return SERVER_NAMES.get(kind, clean(kind))


def server_label(server: ServerView) -> Text:
    """A found server as a choice: its name, address and how many models it serves."""
    label = Text()
    label.append(server_name(server.kind), style="bold")
    label.append(" at ")
    label.append_text(plain(shown_url(server.base_url)))
    count = len(server.models)
    label.append(f"  ({count} model{'s' if count != 1 else ''})", style="dim")
    return label


def answer_line(url: str, answer: UrlAnswer) -> Content:
    """What the server at `url` answered, in one line (never the key, nor a password in it)."""
    url = shown_url(url)
    server = answer.server
    if answer.outcome == "found" and server is not None:
        count = len(server.models)
        listed = f"{count} model{'s' if count != 1 else ''}" if count else "no models listed"
        return content(f"✓ {server_name(server.kind)} at {url}: {listed}.", "$text-success")
    if answer.outcome == "needs_key":
        return content(f"The server at {url} wants a key: type it under API key.", "$text-warning")
    if answer.outcome == "bad_key":
        return content(f"The server at {url} refused this key: check it.", "$text-error")
    if answer.outcome == "not_openai":
        return content(
            f"Something answers at {url}, but not as an OpenAI-compatible server (no model "
            "list at /models): check the path, which usually ends in /v1.",
            "$text-warning",
        )
    return content(
        f"Nothing answers at {url}: start the server, or check the address and port.",
        "$text-error",
    )


def key_hint(*, key_typed: bool, store: bool, env: str, config_path: str) -> str:
    """Where the key will come from, and exactly what to do about it."""
    where = config_path or "the config file"
    if key_typed and store:
        return f"The key is written to {where}, readable only by you (mode 0600)."
    name = env or "OPENAI_API_KEY"
    if key_typed:
        return (
            f"The key is used for this run only; the config names ${name}. Set it in your "
            f"shell (or its profile) for the next: export {name}=…"
        )
    if env:
        return f"The key is read from ${env} when ctxchat starts: export {env}=…"
    return "No key: right for a local server. Type one above if the server wants it."
