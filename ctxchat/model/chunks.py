"""What a streamed chat completion chunk says, read from its decoded JSON: answer text,
reasoning, how the reply finished, and the usage the server reported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxchat.model.backend import StreamChunk, ThinkTagSplitter, Usage


def pieces_of(chunk: Any, splitter: ThinkTagSplitter | None) -> list[StreamChunk]:
    """Turn one streamed chunk (decoded JSON) into our chunks: text and reasoning, finish,
    usage. Whatever is missing or of the wrong type is read as absent."""
    pieces: list[StreamChunk] = []
    if not isinstance(chunk, dict):
        return pieces
    # The final usage chunk has no choices; some servers send None instead of [].
    for choice in chunk.get("choices") or ():
        if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
            continue  # we ask for one reply; ignore any other
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            delta = {}
        content = delta.get("content")
        text = content if isinstance(content, str) else ""
        reasoning = _reasoning_of(delta)
        finish = choice.get("finish_reason")
        finish = finish if isinstance(finish, str) else None
        if splitter is not None:
            text, thought = splitter.feed(text)
            reasoning += thought
            if finish is not None:
                rest, thought = splitter.flush()
                text, reasoning = text + rest, reasoning + thought
        if text or reasoning or finish:
            pieces.append(StreamChunk(text=text, reasoning=reasoning, finish_reason=finish))
    usage = _usage_of(chunk.get("usage"))
    if usage is not None:
        pieces.append(StreamChunk(usage=usage))
    return pieces


def _reasoning_of(delta: Mapping[str, Any]) -> str:
    # llama.cpp, vLLM and DeepSeek say reasoning_content; Ollama and OpenRouter say reasoning.
    for name in ("reasoning_content", "reasoning"):
        value = delta.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _usage_of(usage: object) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("prompt_tokens")
    completion = usage.get("completion_tokens")
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    result = Usage(
        prompt_tokens=prompt if isinstance(prompt, int) else None,
        completion_tokens=completion if isinstance(completion, int) else None,
        cached_tokens=cached if isinstance(cached, int) else None,
    )
    return None if result == Usage(None, None, None) else result
