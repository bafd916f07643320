"""A request as the server's chat template renders it: the exact text the model reads, its
tokens, which messages the template left out, and how many tokens the template adds."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ctxchat.core.tokens import text_key
from ctxchat.model.errors import ProviderError
from ctxchat.model.rendering import NotRendered, RenderedPrompt

if TYPE_CHECKING:
    from ctxchat.model.backend import ModelBackend

__all__ = ["NotRendered", "RenderedRequest", "render_request", "rendered_parts", "request_key"]

OFFLINE = NotRendered("No server was asked (offline): only the server can render its template.")


def request_key(messages: Sequence[Mapping[str, str]]) -> bytes:
    """Names one request's messages among kept renderings."""
    return text_key(json.dumps(list(messages), ensure_ascii=False, sort_keys=True))


@dataclass(frozen=True)
class RenderedRequest:
    """The rendered prompt of one request, beside its messages.

    `content_tokens` is the sum of the server's counts of the contents the text holds (None
    when the server did not count them); `left_out` the positions (from 0) of the messages
    whose content the text does not hold: the template dropped them. `added` is what the
    tokenizer puts before the text (`<bos>`), counted in `tokens`.
    """

    text: str
    tokens: int | None
    content_tokens: int | None
    left_out: tuple[int, ...] = ()
    added: str = ""

    @property
    def template_tokens(self) -> int | None:
        """What the template itself adds: role markers, special tokens, separators."""
        if self.tokens is None or self.content_tokens is None:
            return None
        return self.tokens - self.content_tokens

    def to_dict(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        """As `context --json` gives it."""
        return {
            "text": self.text,
            "added_by_tokenizer": self.added,
            "tokens": self.tokens,
            "template_tokens": self.template_tokens,
            "left_out": [
                {"index": index, "role": messages[index].get("role", "")} for index in self.left_out
            ],
        }


class RenderingCounts(Protocol):
    """The server's own counts (`chat/server_counts.py: ServerCounts`): they count the
    contents of a rendering and keep it for the panels."""

    async def count(self, texts: Iterable[str]) -> int: ...
    def counted(self, text: str) -> int | None: ...
    def keep_rendering(self, key: bytes, rendered: RenderedRequest) -> None: ...


class RenderingSession(Protocol):
    """What rendering a request reads of its session: its server, model and counts."""

    @property
    def backend(self) -> ModelBackend | None: ...
    @property
    def model(self) -> str: ...
    @property
    def server_counts(self) -> RenderingCounts | None: ...


def left_out_of(text: str, messages: Sequence[Mapping[str, str]]) -> tuple[int, ...]:
    """The messages whose content (trimmed, as templates trim it) is not in `text`."""
    return tuple(
        index
        for index, message in enumerate(messages)
        if (message.get("content") or "").strip() not in text
    )


async def content_tokens(
    counts: RenderingCounts | None, messages: Sequence[Mapping[str, str]], left_out: Sequence[int]
) -> int | None:
    """The server's counts of the contents the rendering holds, summed (None: not all known)."""
    if counts is None:
        return None
    texts = [m.get("content") or "" for i, m in enumerate(messages) if i not in left_out]
    await counts.count(texts)
    found = [counts.counted(text) for text in texts]
    return None if any(count is None for count in found) else sum(c for c in found if c)


async def render_request(
    session: RenderingSession, messages: Sequence[Mapping[str, str]]
) -> RenderedRequest | NotRendered:
    """Ask the server to render a request of `messages`; kept for the panels when it counts."""
    backend = session.backend
    if backend is None:
        return OFFLINE
    try:
        rendering = await backend.render_prompt(messages, model=session.model)
    except ProviderError as error:
        return NotRendered(error.message)
    if not isinstance(rendering, RenderedPrompt):
        return rendering
    left_out = left_out_of(rendering.text, messages)
    counts = session.server_counts
    rendered = RenderedRequest(
        rendering.text,
        rendering.tokens,
        await content_tokens(counts, messages, left_out) if rendering.tokens else None,
        left_out,
        rendering.added,
    )
    if counts is not None:
        counts.keep_rendering(request_key(messages), rendered)
    return rendered


def rendered_parts(
    text: str, messages: Sequence[Mapping[str, str]]
) -> list[tuple[str, int | None]]:
    """`text` cut into the messages' contents (with the message's position) and what the
    template put around them (None), in order. A content the template moved out of order
    or dropped counts as the template's."""
    parts: list[tuple[str, int | None]] = []
    position = 0
    for index, message in enumerate(messages):
        content = (message.get("content") or "").strip()
        found = text.find(content, position) if content else -1
        if found < 0:
            continue
        if found > position:
            parts.append((text[position:found], None))
        parts.append((content, index))
        position = found + len(content)
    if position < len(text):
        parts.append((text[position:], None))
    return parts
