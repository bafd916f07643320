"""The prompt as the server's chat template lays it out, where the server renders it for
clients (llama.cpp's `/apply-template`), and the token count of that exact text."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ctxchat.model.probes.base import Answer, SideRequests

__all__ = [
    "APPLY_TEMPLATE",
    "NotRendered",
    "RenderedPrompt",
    "Rendering",
    "render_messages",
    "rendered_token_count",
]

APPLY_TEMPLATE = "/apply-template"
TOKENIZE = "/tokenize"
# Answers that say the server has no such endpoint (rather than that it failed this once).
_NO_ENDPOINT = frozenset({404, 405, 501})


@dataclass(frozen=True)
class RenderedPrompt:
    """The text the model reads for a request: role markers, special tokens and all.

    `tokens` is its length by the server's own tokenizer, counted as the server counts a
    chat prompt; None when the server rendered it but would not count it. `added` is what
    the tokenizer puts before the text itself (llama.cpp leaves the model's BOS out of the
    rendered text and adds it when it tokenizes: `<bos>`).
    """

    text: str
    tokens: int | None
    added: str = ""


@dataclass(frozen=True)
class NotRendered:
    """Why the rendered prompt cannot be shown, in one sentence.

    `lasting` says the server has no way to render (it will not change on asking again).
    """

    reason: str
    lasting: bool = False


Rendering = RenderedPrompt | NotRendered

NO_RENDERER = NotRendered(
    "This server does not render its chat template for clients (llama.cpp's server does, "
    "with /apply-template): what the model reads is the messages in the server's own "
    "template, which it does not show.",
    lasting=True,
)
HOSTED = NotRendered(
    "A hosted API does not show its chat template: what the model reads is the messages in "
    "the provider's own format.",
    lasting=True,
)


def _text_field(data: object, name: str) -> str | None:
    value = data.get(name) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _failure(what: str, answer: Answer) -> NotRendered:
    if answer.timed_out:
        return NotRendered(f"The server took too long to {what}; try again.")
    if not answer.reached:
        return NotRendered(f"The server did not answer when asked to {what}.")
    if answer.status in _NO_ENDPOINT:
        return NO_RENDERER
    return NotRendered(f"The server could not {what} (HTTP {answer.status}).")


def rendered_token_count(data: object) -> int | None:
    """The count in a `/tokenize` answer (`{"tokens": [...]}`), or None."""
    tokens = data.get("tokens") if isinstance(data, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


async def render_messages(
    ask: SideRequests, messages: Sequence[Mapping[str, str]], model: str
) -> Rendering:
    """Ask the server to lay `messages` out in its chat template, then count that text.

    The count tokenizes special tokens as such (`<start_of_turn>` is one token) and adds the
    tokens the model starts every prompt with, as the server does for a chat request.
    """
    body = {"model": model, "messages": [dict(message) for message in messages]}
    answer = await ask.post(ask.root_url + APPLY_TEMPLATE, body, timeout=ask.slow_timeout)
    text = _text_field(answer.data, "prompt") if answer.ok else None
    if text is None:
        if answer.ok:
            return NotRendered("The server's answer to /apply-template holds no prompt.")
        return _failure("render its chat template", answer)
    counted, added = await asyncio.gather(
        ask.post(
            ask.root_url + TOKENIZE,
            {"content": text, "add_special": True, "parse_special": True},
            timeout=ask.slow_timeout,
        ),
        ask.post(
            ask.root_url + TOKENIZE, {"content": "", "add_special": True, "with_pieces": True}
        ),
    )
    count = rendered_token_count(counted.data) if counted.ok else None
    return RenderedPrompt(text, count, _pieces(added.data) if added.ok else "")


def _pieces(data: object) -> str:
    """The text of the tokens in a `/tokenize` answer with pieces ("" when it has none)."""
    tokens = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(tokens, list):
        return ""
    pieces = [t.get("piece") if isinstance(t, dict) else None for t in tokens]
    return "".join(p for p in pieces if isinstance(p, str))
