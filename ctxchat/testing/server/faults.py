"""The failures the scripted server injects: error statuses, broken streams, odd replies."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ctxchat.testing.server.answers import Answer
from ctxchat.testing.server.script import Reply

LMSTUDIO_OVERFLOW = (
    "Trying to keep the first {prompt} tokens when context the overflows. However, the model "
    "is loaded with context length of only {n_ctx} tokens, which is not enough. Try to load "
    "the model with a larger context length, or provide a shorter input"
)


class Fault(StrEnum):
    """A failure `fail_next` injects into the next chat request."""

    AUTH = "auth"
    FORBIDDEN = "forbidden"
    UNKNOWN_MODEL = "unknown_model"
    RATE_LIMIT = "rate_limit"
    SERVER_ERROR = "server_error"
    CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded"
    LLAMA_CPP_CONTEXT = "exceed_context_size_error"
    ERROR_IN_STREAM = "error_in_stream"
    EMPTY_STREAM = "empty_stream"
    DROP = "drop"
    HANG_UP = "hang_up"
    """The connection is closed before any answer, as by a server that had closed it idle."""
    STALL = "stall"
    BAD_JSON = "bad_json"
    FINISH_LENGTH = "finish_length"
    REASONING = "reasoning"
    THINK_TAGS = "think_tags"


# Faults that strike in the middle of a streamed reply rather than before it.
MID_STREAM_FAULTS = frozenset({Fault.DROP, Fault.STALL, Fault.ERROR_IN_STREAM})


@dataclass(frozen=True)
class PendingFault:
    """A queued fault and its options (see `ScriptedModelServer.fail_next`)."""

    fault: Fault
    options: dict[str, Any] = field(default_factory=dict)


def status_answer(
    pending: PendingFault,
    *,
    model: str,
    prompt_tokens: int,
    n_ctx: int,
    authorization: str,
) -> Answer | None:
    """The HTTP error a fault answers with; None for faults that are not an error status."""
    fault, options = pending.fault, pending.options
    n_ctx = int(options.get("n_ctx", n_ctx))
    if fault is Fault.AUTH:
        presented = authorization.removeprefix("Bearer ")
        message = options.get("message", f"Incorrect API key provided: {presented}.")
        return Answer.error(401, message, type="invalid_request_error", code="invalid_api_key")
    if fault is Fault.FORBIDDEN:
        return Answer.error(
            403,
            f"Project `proj_test` does not have access to model `{model}`",
            type="invalid_request_error",
            code="model_not_found",
        )
    if fault is Fault.UNKNOWN_MODEL:
        return Answer.error(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            type="invalid_request_error",
            param=None,
            code="model_not_found",
        )
    if fault is Fault.RATE_LIMIT:
        retry_after = options.get("retry_after", 1)
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        return Answer.json(
            429,
            {
                "error": {
                    "message": "Rate limit reached for requests per min (RPM).",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            },
            headers,
        )
    if fault is Fault.SERVER_ERROR:
        status = int(options.get("status", 500))
        text = options.get("body")
        if isinstance(text, str):
            return Answer(status, text.encode(), "text/html")
        return Answer.error(
            status, "The server had an error while processing your request.", type="server_error"
        )
    if fault is Fault.CONTEXT_LENGTH_EXCEEDED:
        return Answer.error(
            400,
            f"This model's maximum context length is {n_ctx} tokens. However, your "
            f"messages resulted in {prompt_tokens} tokens. Please reduce the length of "
            "the messages.",
            type="invalid_request_error",
            param="messages",
            code="context_length_exceeded",
        )
    if fault is Fault.LLAMA_CPP_CONTEXT:
        return Answer.error(
            400,
            f"request ({prompt_tokens} tokens) exceeds the available context size "
            f"({n_ctx} tokens), try increasing it",
            code=400,
            type="exceed_context_size_error",
            n_prompt_tokens=prompt_tokens,
            n_ctx=n_ctx,
        )
    return None


def shape_reply(pending: PendingFault, reply: Reply) -> Reply:
    """Faults that change the reply itself rather than the transport."""
    fault, options = pending.fault, pending.options
    text = options.get("text", reply.text)
    if fault is Fault.FINISH_LENGTH:
        return Reply(text, reply.reasoning, reply.reasoning_field, finish_reason="length")
    if fault is Fault.REASONING:
        reasoning = options.get("reasoning", "Let me think about this.")
        field_name = options.get("field", "reasoning_content")
        return Reply(text, reasoning, field_name, reply.finish_reason)
    if fault is Fault.THINK_TAGS:
        thought = options.get("reasoning", "Let me think about this.")
        return Reply(f"<think>\n{thought}\n</think>\n\n{text}", "", finish_reason="stop")
    return Reply(text, reply.reasoning, reply.reasoning_field, reply.finish_reason)


def in_stream_message(pending: PendingFault | None, *, prompt_tokens: int, n_ctx: int) -> str:
    """The `error` a reply carries inside a 200 answer (LM Studio's overflow by default)."""
    options = pending.options if pending is not None else {}
    default = LMSTUDIO_OVERFLOW.format(prompt=prompt_tokens, n_ctx=options.get("n_ctx", n_ctx))
    return str(options.get("message", default))
