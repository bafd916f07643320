"""The tokenize endpoints servers offer, one per kind, and finding which one a server has."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ctxchat.model.probes.base import Answer, SideRequests


@dataclass(frozen=True)
class TokenizerEndpoint:
    """A server's tokenize endpoint: where it is, what to send, how to read the count."""

    name: str
    path: str
    payload: Callable[[str, str], dict[str, Any]]
    """The request body for (text, model)."""
    read: Callable[[object], int | None]
    """The token count in the answer, or None when the answer is not what this server sends."""

    def count_of(self, answer: Answer) -> int | None:
        return self.read(answer.data) if answer.ok else None


def _count_field(data: object) -> int | None:
    count = data.get("count") if isinstance(data, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None


def _tokens_field(data: object) -> int | None:
    tokens = data.get("tokens") if isinstance(data, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


LLAMA_CPP_PYTHON = TokenizerEndpoint(
    "llama-cpp-python", "/extras/tokenize/count", lambda text, _model: {"input": text}, _count_field
)
LLAMA_CPP = TokenizerEndpoint(
    "llama.cpp", "/tokenize", lambda text, _model: {"content": text}, _tokens_field
)
VLLM = TokenizerEndpoint(
    "vllm",
    "/tokenize",
    lambda text, model: {"model": model, "prompt": text, "add_special_tokens": False},
    _count_field,
)

# In order of preference: llama.cpp ignores `prompt`, vLLM refuses `content`.
TOKENIZERS: tuple[TokenizerEndpoint, ...] = (LLAMA_CPP_PYTHON, LLAMA_CPP, VLLM)
TOKENIZERS_BY_NAME = {endpoint.name: endpoint for endpoint in TOKENIZERS}


async def find_tokenizer(ask: SideRequests, model: str) -> tuple[TokenizerEndpoint | None, bool]:
    """The first tokenize endpoint that counts "ping", and whether the server answered at all."""
    answers = await asyncio.gather(
        *(ask.post(ask.root_url + t.path, t.payload("ping", model)) for t in TOKENIZERS)
    )
    for endpoint, answer in zip(TOKENIZERS, answers, strict=True):
        if endpoint.count_of(answer) is not None:
            return endpoint, True
    return None, any(answer.reached for answer in answers)
