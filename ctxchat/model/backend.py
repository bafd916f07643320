"""The model backend interface: stream a reply, list models, describe the server."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxchat.core.server_count import TemplateCost
from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.model.probes.base import WINDOW_SOURCES
from ctxchat.model.rendering import NO_RENDERER, Rendering
from ctxchat.model.request import ChatRequest, build_chat_request

__all__ = [
    "WINDOW_SOURCES",
    "ModelBackend",
    "ModelListing",
    "ServerInfo",
    "StreamChunk",
    "ThinkTagSplitter",
    "Usage",
]


@dataclass(frozen=True)
class Usage:
    """Token counts the server reported for one request (None where it did not say)."""

    prompt_tokens: int | None
    completion_tokens: int | None
    cached_tokens: int | None = None


@dataclass(frozen=True)
class StreamChunk:
    """One piece of a streamed reply: answer text, reasoning, usage, or how it finished."""

    text: str = ""
    reasoning: str = ""
    usage: Usage | None = None
    finish_reason: str | None = None


@dataclass(frozen=True)
class ModelListing:
    """The server's `/models` answer: the model ids, and the answer as JSON (`{"data": [...]}`),
    whose entries some servers fill with a model's window."""

    ids: tuple[str, ...]
    data: Any


@dataclass(frozen=True)
class ServerInfo:
    """What the server is and how large a context it serves.

    `window_source` is one of `WINDOW_SOURCES`: "server" (the server said), "probed" (an
    over-long probe made it say), "learned from an error" (a refused request said), "table"
    (the known window of this model), "config" (the user's setting) or "default" (a guess).
    `tokenizer` tells whether `count_tokens` gives exact counts, `tokenizer_name` whose.
    """

    kind: str
    base_url: str
    model: str
    context_window: int | None
    window_source: str
    tokenizer: bool
    tokenizer_name: str | None = None
    template: TemplateCost | None = None
    """The chat template's cost, calibrated where the server can count (see probes.template)."""
    warnings: tuple[str, ...] = ()


class ModelBackend(ABC):
    """A model server the app talks to.

    Every method is async so the TUI can run it in a worker; failures raise `ProviderError`.
    Messages are plain `{"role": ..., "content": ...}` dicts, sent exactly as given.
    """

    base_url: str = ""
    """The server's OpenAI-compatible API root."""

    @property
    def sends_usage_option(self) -> bool:
        """Whether a streamed request asks for usage (`stream_options`); False once the
        server refused it."""
        return True

    def chat_request(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        model: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ChatRequest:
        """The request `stream_reply` sends for these arguments (headers not included: the
        backend adds its own key and headers)."""
        return build_chat_request(
            base_url=self.base_url,
            model=model,
            messages=messages,
            max_tokens=max_tokens,
            temperature=temperature,
            stream_usage=self.sends_usage_option,
        )

    def stream_reply(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        model: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        """Stream the reply to `messages`: `stream_request` of `chat_request`'s request."""
        request = self.chat_request(
            messages, model=model, max_tokens=max_tokens, temperature=temperature
        )
        return self.stream_request(request)

    @abstractmethod
    def stream_request(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        """Send `request.body` exactly and stream the reply (implementations are async
        generators).

        Text and reasoning arrive in separate chunks; usage, when the server reports it, in a
        chunk of its own; the last chunk carries the `finish_reason` ("length" means the output
        limit cut the reply: see `describe_finish`). A failure after some text raises
        `ProviderError` with that text in `partial_text`. Cancelling the consuming task (the
        user pressed stop) closes the request and lets `CancelledError` through; the caller
        keeps what it already received. Close the iterator (`contextlib.aclosing`) if you stop
        early without cancelling.
        """

    async def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        model: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> tuple[str, Usage | None]:
        """The whole reply text and usage, for summaries and extraction.

        Reasoning is dropped. A reply cut by the output limit raises `ProviderError` of kind
        `TRUNCATED_LENGTH` (cut text in `partial_text`), because these callers need a whole
        answer.
        """
        parts: list[str] = []
        usage: Usage | None = None
        finish: str | None = None
        stream = self.stream_reply(
            messages, model=model, max_tokens=max_tokens, temperature=temperature
        )
        try:
            async for chunk in stream:
                parts.append(chunk.text)
                usage = chunk.usage or usage
                finish = chunk.finish_reason or finish
        finally:
            # Close the request at once if we leave early (error, cancellation).
            if isinstance(stream, AsyncGenerator):
                await stream.aclose()
        text = "".join(parts)
        if finish == "length":
            raise ProviderError(
                ErrorKind.TRUNCATED_LENGTH,
                "The reply was cut off by the output limit (max tokens).",
                "Raise output_reserve in the [context] config table.",
                partial_text=text,
            )
        return text, usage

    async def list_models(self) -> list[str]:
        """The model ids the server offers."""
        return list((await self.model_listing()).ids)

    @abstractmethod
    async def model_listing(self) -> ModelListing:
        """The server's `/models` answer: one request."""

    @abstractmethod
    async def describe_server(
        self, model: str, configured_window: int | None, *, listing: ModelListing | None = None
    ) -> ServerInfo:
        """Which server this is and the context window it serves `model` with. `listing` is
        a `/models` answer just received, which is not asked for again."""

    @abstractmethod
    async def count_tokens(self, text: str) -> int | None:
        """Exact token count of `text` by the server's tokenizer; None when it has none."""

    @property
    def renders(self) -> bool:
        """Whether `render_prompt` may render (False once the server showed it cannot)."""
        return False

    async def render_prompt(
        self, messages: Sequence[Mapping[str, str]], *, model: str
    ) -> Rendering:
        """`messages` as the server's chat template lays them out, with the token count of
        that text; or why it cannot say (most servers do not render for clients)."""
        return NO_RENDERER

    def served_model(self, model: str) -> str | None:
        """The model the server named in its last reply to a request for `model`."""
        return None

    @abstractmethod
    async def aclose(self) -> None:
        """Release connections."""


class ThinkTagSplitter:
    """Separates a leading `<think>...</think>` block in streamed text into reasoning.

    Some servers put a reasoning model's thoughts in the content itself. Only a block at the
    very start of the reply counts, so an answer that merely mentions the tag is left alone.
    Tags split across chunks are handled by holding back the few characters that could still
    become one.
    """

    OPEN = "<think>"
    CLOSE = "</think>"

    def __init__(self) -> None:
        self._state = "start"
        self._buffer = ""

    def feed(self, text: str) -> tuple[str, str]:
        """Take the next piece of content; return (answer text, reasoning) ready to show."""
        if self._state == "text":
            return text, ""
        self._buffer += text
        if self._state == "start":
            head = self._buffer.lstrip()
            if head.startswith(self.OPEN):
                self._state = "think_start"
                self._buffer = head[len(self.OPEN) :]
            elif self.OPEN.startswith(head):
                return "", ""
            else:
                self._state = "text"
                out, self._buffer = self._buffer, ""
                return out, ""
        if self._state == "think_start":
            # Thoughts usually open with a newline; it is layout, not reasoning.
            self._buffer = self._buffer.lstrip()
            if not self._buffer:
                return "", ""
            self._state = "think"
        if self._state == "think":
            end = self._buffer.find(self.CLOSE)
            if end < 0:
                keep = _partial_suffix(self._buffer, self.CLOSE)
                cut = len(self._buffer) - keep
                reasoning, self._buffer = self._buffer[:cut], self._buffer[cut:]
                return "", reasoning
            reasoning = self._buffer[:end]
            self._buffer = self._buffer[end + len(self.CLOSE) :]
            self._state = "after"
            text_out, _ = self.feed("")
            return text_out, reasoning
        # "after": drop the blank lines between the thoughts and the answer.
        stripped = self._buffer.lstrip()
        if not stripped:
            self._buffer = ""
            return "", ""
        self._state = "text"
        self._buffer = ""
        return stripped, ""

    def flush(self) -> tuple[str, str]:
        """What is still held back when the stream ends."""
        held, self._buffer = self._buffer, ""
        if self._state in ("think_start", "think"):
            return "", held.lstrip() if self._state == "think_start" else held
        if self._state == "after":
            return held.lstrip(), ""
        return held, ""


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a proper beginning of `tag`."""
    for length in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-length:]):
            return length
    return 0
