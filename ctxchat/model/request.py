"""The one place a chat request is built: its body and headers, as sent and as shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ctxchat.redaction import mask_secret, masked_headers, shown_url

__all__ = ["ChatRequest", "Sampling", "build_chat_request", "max_tokens_field", "request_headers"]

# OpenAI's newer models refuse `max_tokens`; other servers may not know its successor.
_SUCCESSOR_HOSTS = frozenset({"api.openai.com"})
_AUTHORIZATION = "Authorization"


def max_tokens_field(base_url: str) -> str:
    """The body field that limits the reply on this server."""
    host = (urlsplit(base_url).hostname or "").lower()
    return "max_completion_tokens" if host in _SUCCESSOR_HOSTS else "max_tokens"


def request_headers(api_key: str | None, headers: Mapping[str, str] = {}) -> dict[str, str]:
    """The headers ctxchat adds to every request: the key as a bearer token, then the
    profile's own (a profile's `Authorization` replaces the key's)."""
    sent = {_AUTHORIZATION: f"Bearer {api_key}"} if api_key else {}
    sent.update(headers)
    return sent


@dataclass(frozen=True, slots=True)
class Sampling:
    """How a reply is sampled, as a request body says it (None: the server's default)."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    """The most tokens the reply may have (`max_tokens`, or `max_completion_tokens`)."""

    @classmethod
    def of_body(cls, body: Mapping[str, Any]) -> Sampling:
        """The sampling a request body asks for (a value that is not a number, in a body
        imported from elsewhere, as unset)."""
        limit = body.get("max_tokens", body.get("max_completion_tokens"))
        return cls(
            _number(body.get("temperature")),
            _number(body.get("top_p")),
            limit if isinstance(_number(limit), int) else None,
        )

    def words(self) -> list[str]:
        """What is asked beyond the server's defaults and the reply's limit, as words
        ("temperature 0.2", "top_p 0.9")."""
        asked = (("temperature", self.temperature), ("top_p", self.top_p))
        return [f"{name} {value:g}" for name, value in asked if value is not None]

    def to_dict(self) -> dict[str, float | int | None]:
        return {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens}


def _number(value: object) -> Any:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request: where it goes, the headers ctxchat sets, the JSON body.

    `body` is exactly what the client sends. `headers` hold secrets in clear: show them
    only through `shown()`. The HTTP library adds its own headers (user agent, length).
    """

    url: str
    body: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def sampling(self) -> Sampling:
        """The sampling the body asks for (temperature, top_p, the reply's limit)."""
        return Sampling.of_body(self.body)

    def shown_headers(self) -> dict[str, str]:
        """The headers with every secret masked."""
        shown = masked_headers(self.headers)
        authorization = self.headers.get(_AUTHORIZATION, "")
        if authorization.startswith("Bearer "):
            shown[_AUTHORIZATION] = "Bearer " + mask_secret(authorization.removeprefix("Bearer "))
        return shown

    def shown(self) -> dict[str, Any]:
        """The request as every surface shows it (inspector, `context --json`, stored plan):
        secrets masked, in the headers and in the URL."""
        return {
            "url": shown_url(self.url),
            "headers": self.shown_headers(),
            "body": dict(self.body),
        }


def build_chat_request(
    *,
    base_url: str,
    model: str,
    messages: Sequence[Mapping[str, str]],
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    stream: bool = True,
    stream_usage: bool = True,
    api_key: str | None = None,
    headers: Mapping[str, str] = {},
) -> ChatRequest:
    """The complete request for `messages`; every field the client sends is decided here.

    `stream_usage` asks for a usage chunk at the end of a stream (`stream_options`), which
    a few servers refuse; the backend clears it for them.
    """
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
    }
    body["stream"] = stream
    if stream and stream_usage:
        body["stream_options"] = {"include_usage": True}
    if max_tokens is not None:
        body[max_tokens_field(base_url)] = max_tokens
    if temperature is not None:
        body["temperature"] = temperature
    if top_p is not None:
        body["top_p"] = top_p
    url = base_url.rstrip("/") + "/chat/completions"
    return ChatRequest(url, body, request_headers(api_key, headers))
