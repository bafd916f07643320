"""Provider errors: one kind, one sentence and one action per failure, with secrets redacted.

Every failure a model server can cause reaches the app as a `ProviderError` whose `message` is
one sentence for the user and whose `action` says what to do. Text that came from the server
(`detail`) and everything else in the error passes through `redact` first, so neither the API
key nor a `Bearer` header can leak into the UI, a log or an export.

A reply cut by the output limit (`finish_reason="length"`) is not an error while streaming: the
stream ends with a chunk whose `finish_reason` is `"length"`, and `describe_finish` gives the
sentence to show beside the kept reply. Only `ModelBackend.complete`, whose callers need a whole
answer (summaries, extraction), raises it as `ErrorKind.TRUNCATED_LENGTH`, with the cut text in
`partial_text`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum

from ctxchat.redaction import REDACTED, redact, shown_url

__all__ = [
    "REDACTED",
    "ErrorKind",
    "ProviderError",
    "classify_status",
    "connection_error",
    "describe_finish",
    "empty_reply_error",
    "empty_text_error",
    "error_in_reply",
    "interrupted_error",
    "parse_retry_after",
    "redact",
    "rejects_stream_options",
    "server_detail",
    "stalled_error",
    "status_error",
    "stopped_by_user",
    "unreadable_reply_error",
    "web_page_error",
    "window_from_error",
]


class ErrorKind(StrEnum):
    """What went wrong, in the terms the UI acts on."""

    CONNECTION = "connection"
    AUTH = "auth"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    UNKNOWN_MODEL = "unknown_model"
    RATE_LIMIT = "rate_limit"
    SERVER = "server"
    CONTEXT_OVERFLOW = "context_overflow"
    INTERRUPTED = "interrupted"
    STALLED = "stalled"
    TRUNCATED_LENGTH = "truncated_length"
    BAD_REQUEST = "bad_request"
    BAD_RESPONSE = "bad_response"
    CANCELLED = "cancelled"


class ProviderError(Exception):
    """A model-server failure, told as one sentence (`message`) and one action (`action`).

    `partial_text` is the reply text received before the failure (kept by the caller, marked
    interrupted); `available_models` lists what the server offers when the model was refused;
    `retry_after` is the server's requested wait in seconds; `context_window` is the window the
    server revealed in an overflow error, `prompt_tokens` the prompt's size as it counted it
    (llama.cpp's `n_prompt_tokens`, llama-cpp-python's "Requested tokens (N)"); `detail` is
    the server's own wording, redacted.
    """

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        action: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        available_models: Sequence[str] = (),
        partial_text: str = "",
        detail: str = "",
        context_window: int | None = None,
        prompt_tokens: int | None = None,
        secrets: Iterable[str | None] = (),
    ) -> None:
        hidden = tuple(secrets)
        self.kind = kind
        self.message = redact(message, hidden)
        self.action = redact(action, hidden)
        self.detail = redact(detail, hidden)
        self.status = status
        self.retry_after = retry_after
        self.available_models = tuple(available_models)
        self.partial_text = partial_text
        self.context_window = context_window
        self.prompt_tokens = prompt_tokens
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"{self.message} {self.action}".strip()

    def __repr__(self) -> str:
        return (
            f"ProviderError(kind={self.kind.value!r}, message={self.message!r}, "
            f"status={self.status!r}, detail={self.detail!r})"
        )


def stopped_by_user(partial_text: str) -> ProviderError:
    """The error a caller records when the user stopped a reply (the backend never raises it)."""
    return ProviderError(
        ErrorKind.CANCELLED,
        "You stopped the reply; the part received so far was kept.",
        "Regenerate to get a complete reply.",
        partial_text=partial_text,
    )


_FINISH_SENTENCES = {
    "length": (
        "The reply was cut off by the output limit (max tokens). "
        "Raise output_reserve in the [context] config table."
    ),
    "content_filter": "The server's content filter stopped the reply.",
}


def describe_finish(finish_reason: str | None) -> str | None:
    """The sentence to show beside a reply that ended for `finish_reason`; None when normal."""
    if finish_reason is None:
        return None
    return _FINISH_SENTENCES.get(finish_reason)


# -- reading what the server said -------------------------------------------------------------

_DETAIL_LIMIT = 500

# Wordings of "the prompt does not fit": OpenAI, llama.cpp, llama-cpp-python, LM Studio, vLLM,
# Ollama and proxies in front of them.
_OVERFLOW = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|exceeds? the (available )?context"
    r"|prompt is too long|input is too long|too many (input |prompt )?tokens|n_ctx",
    re.IGNORECASE,
)
_OVERFLOW_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
_UNKNOWN_MODEL = re.compile(
    r"model\b.{0,120}?(not found|does not exist|doesn't exist|unknown|not loaded|invalid)"
    r"|(unknown|invalid|no such) model",
    re.IGNORECASE | re.DOTALL,
)
_PROMPT_PATTERNS = (
    re.compile(r"messages resulted in (\d+) tokens", re.IGNORECASE),
    re.compile(r"requested tokens \((\d+)\)", re.IGNORECASE),
    re.compile(r"request \((\d+) tokens?\) exceeds", re.IGNORECASE),
)
_WINDOW_PATTERNS = (
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),
    re.compile(r"available context size \((\d+) tokens?\)", re.IGNORECASE),
    re.compile(r"context length of only (\d+)", re.IGNORECASE),
    re.compile(r"context window of (\d+)", re.IGNORECASE),
)


def server_detail(body: object) -> str:
    """The server's own error wording from a decoded error body, shortened."""
    text: str
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, str):
            text = inner
        elif isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            text = inner["message"]
        elif isinstance(body.get("message"), str):
            text = body["message"]
        elif isinstance(body.get("detail"), str):
            text = body["detail"]
        else:
            text = json.dumps(body, default=str)
    elif body is None:
        text = ""
    else:
        text = str(body)
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_LIMIT else text[: _DETAIL_LIMIT - 1] + "…"


def _codes(body: object) -> set[str]:
    """The `code` and `type` strings of an error body (at its top level or under `error`)."""
    found: set[str] = set()
    for part in (body, body.get("error") if isinstance(body, Mapping) else None):
        if isinstance(part, Mapping):
            for key in ("code", "type"):
                value = part.get(key)
                if isinstance(value, str):
                    found.add(value)
    return found


def _is_overflow(body: object, detail: str) -> bool:
    return bool(_codes(body) & _OVERFLOW_CODES) or bool(_OVERFLOW.search(detail))


OVERFLOW_ACTION = "Set context_window in the profile to the server's window, then retry."


def overflow_message(window: int | None) -> str:
    """What a context overflow says, with the server's window when it named one."""
    size = f" ({window} tokens)" if window else ""
    return f"The conversation is longer than the model's context window{size}."


def window_from_error(body: object) -> int | None:
    """The context window an overflow error reveals (llama.cpp's n_ctx, or the wording)."""
    for part in (body, body.get("error") if isinstance(body, Mapping) else None):
        if isinstance(part, Mapping):
            n_ctx = part.get("n_ctx")
            if isinstance(n_ctx, int) and n_ctx > 0:
                return n_ctx
    detail = server_detail(body)
    for pattern in _WINDOW_PATTERNS:
        match = pattern.search(detail)
        if match:
            return int(match.group(1))
    return None


def prompt_tokens_from_error(body: object) -> int | None:
    """The prompt's size as the server counted it, when its overflow error says
    (llama.cpp's `n_prompt_tokens`, or the wording)."""
    for part in (body, body.get("error") if isinstance(body, Mapping) else None):
        if isinstance(part, Mapping):
            count = part.get("n_prompt_tokens")
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                return count
    detail = server_detail(body)
    for pattern in _PROMPT_PATTERNS:
        match = pattern.search(detail)
        if match:
            return int(match.group(1))
    return None


def rejects_stream_options(status: int, body: object) -> bool:
    """Whether a failed request was refused because of `stream_options`."""
    return status in (400, 422) and "stream_options" in json.dumps(body, default=str)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime  # a date is rare here, and email is 3 ms

    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def classify_status(status: int, body: object) -> ErrorKind:
    """What an HTTP error status and its body mean."""
    detail = server_detail(body)
    if status == 401:
        return ErrorKind.AUTH
    if status == 403:
        return ErrorKind.FORBIDDEN
    if status == 429:
        return ErrorKind.RATE_LIMIT
    if status == 413 or _is_overflow(body, detail):
        return ErrorKind.CONTEXT_OVERFLOW
    if status == 404:
        mentions_model = "model_not_found" in _codes(body) or "model" in detail.lower()
        return ErrorKind.UNKNOWN_MODEL if mentions_model else ErrorKind.NOT_FOUND
    if 400 <= status < 500 and ("model_not_found" in _codes(body) or _UNKNOWN_MODEL.search(detail)):
        return ErrorKind.UNKNOWN_MODEL
    if status >= 500:
        return ErrorKind.SERVER
    if status >= 400:
        return ErrorKind.BAD_REQUEST
    return ErrorKind.BAD_RESPONSE


def _listed(models: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(models[:limit])
    return shown + (f" and {len(models) - limit} more" if len(models) > limit else "")


def _seconds(value: float) -> str:
    return f"{value:g} second" + ("" if value == 1 else "s")


# -- the errors, one sentence and one action each -----------------------------------------------


def status_error(
    status: int,
    body: object,
    *,
    model: str,
    base_url: str,
    retry_after: float | None = None,
    available_models: Sequence[str] = (),
    partial_text: str = "",
    secrets: Iterable[str | None] = (),
) -> ProviderError:
    """The error for an HTTP error status from the server."""
    kind = classify_status(status, body)
    detail = server_detail(body)
    window: int | None = None
    if kind is ErrorKind.AUTH:
        message = f"The server rejected the API key ({status} Unauthorized)."
        action = "Check the key in your provider profile or in OPENAI_API_KEY."
    elif kind is ErrorKind.FORBIDDEN:
        message = f"The server refused access to the model '{model}' ({status} Forbidden)."
        action = (
            f"Pick a model your key may use: {_listed(available_models)}."
            if available_models
            else "Check that your key is allowed to use this model, or pick another one."
        )
    elif kind is ErrorKind.UNKNOWN_MODEL:
        message = f"The server does not know the model '{model}'."
        action = (
            f"Pick one it offers: {_listed(available_models)}."
            if available_models
            else "Check the model name against the server's model list."
        )
    elif kind is ErrorKind.NOT_FOUND:
        message = (
            f"There is no OpenAI-compatible API at {shown_url(base_url)} ({status} Not Found)."
        )
        action = "Check the base URL; OpenAI-compatible servers usually answer under /v1."
    elif kind is ErrorKind.RATE_LIMIT:
        if "insufficient_quota" in _codes(body):
            message = f"The provider says your quota is used up ({status} Too Many Requests)."
            action = "Check your plan and billing, then retry."
            retry_after = None
        else:
            message = f"The server is rate-limiting requests ({status} Too Many Requests)."
            action = (
                f"Wait {_seconds(retry_after)}, then retry."
                if retry_after is not None
                else "Wait a moment, then retry."
            )
    elif kind is ErrorKind.CONTEXT_OVERFLOW:
        window = window_from_error(body)
        message = overflow_message(window)
        action = OVERFLOW_ACTION
    elif kind is ErrorKind.SERVER:
        message = f"The model server failed with an internal error ({status})."
        action = "Retry in a moment; if it keeps failing, check the server's log."
    elif kind is ErrorKind.BAD_REQUEST:
        message = f"The server rejected the request ({status})."
        action = "Check the model and request settings; the server's reason is in the details."
    else:
        message = f"The server answered with an unexpected status ({status})."
        action = "Retry; the server's reason is in the details."
    return ProviderError(
        kind,
        message,
        action,
        status=status,
        retry_after=retry_after if kind is ErrorKind.RATE_LIMIT else None,
        available_models=available_models,
        partial_text=partial_text,
        detail=detail,
        context_window=window,
        prompt_tokens=prompt_tokens_from_error(body)
        if kind is ErrorKind.CONTEXT_OVERFLOW
        else None,
        secrets=secrets,
    )


def connection_error(
    base_url: str,
    *,
    timeout: float | None = None,
    detail: str = "",
    secrets: Iterable[str | None] = (),
) -> ProviderError:
    """The server cannot be reached (down, wrong address, or no answer to the connection)."""
    where = shown_url(base_url)
    message = (
        f"The model server at {where} did not answer within {_seconds(timeout)}."
        if timeout is not None
        else f"Could not connect to the model server at {where}."
    )
    action = "Check that the server is running and that the base URL is right."
    if timeout is not None:
        action += " A slow network may need a larger connect_timeout in the [model] config table."
    return ProviderError(
        ErrorKind.CONNECTION,
        message,
        action,
        detail=detail,
        secrets=secrets,
    )


def interrupted_error(
    partial_text: str, *, detail: str = "", secrets: Iterable[str | None] = ()
) -> ProviderError:
    """The stream broke off before the reply was complete."""
    message = (
        "The connection dropped in the middle of the reply; the part received so far was kept."
        if partial_text
        else "The connection dropped before the reply arrived."
    )
    return ProviderError(
        ErrorKind.INTERRUPTED,
        message,
        "Retry to get the whole reply.",
        partial_text=partial_text,
        detail=detail,
        secrets=secrets,
    )


def stalled_error(seconds: float, partial_text: str, *, started: bool) -> ProviderError:
    """The server stopped sending (or never started) for longer than the allowed wait."""
    if started:
        message = (
            f"The server sent nothing for {_seconds(seconds)}, so the reply was stopped; "
            "the part received so far was kept."
        )
        action = "Raise chunk_timeout in the [model] config table."
    else:
        message = f"The server did not start replying within {_seconds(seconds)}."
        action = "Raise first_chunk_timeout in the [model] config table."
    return ProviderError(ErrorKind.STALLED, message, action, partial_text=partial_text)


def empty_reply_error(
    *, likely_overflow: bool, window: int | None = None, prompt_tokens: int | None = None
) -> ProviderError:
    """The stream ended without any text and without saying why; `window` is the server's
    window when asking it afterwards showed the prompt was longer (`prompt_tokens` by its
    count: what the next plan is fitted to)."""
    if window is not None:
        return ProviderError(
            ErrorKind.CONTEXT_OVERFLOW,
            f"The server sent an empty reply: the conversation is longer than its context "
            f"window ({window} tokens).",
            OVERFLOW_ACTION,
            context_window=window,
            prompt_tokens=prompt_tokens,
        )
    if likely_overflow:
        return ProviderError(
            ErrorKind.CONTEXT_OVERFLOW,
            "The server sent an empty reply, most likely because the conversation is longer "
            "than its context window.",
            OVERFLOW_ACTION,
        )
    return ProviderError(
        ErrorKind.BAD_RESPONSE,
        "The server ended the reply without sending anything.",
        "Retry; if it happens again, the conversation may not fit the server's context window.",
    )


def empty_text_error(finish_reason: str) -> ProviderError:
    """The stream ended normally, but the model wrote nothing at all."""
    return ProviderError(
        ErrorKind.BAD_RESPONSE,
        f"The model returned an empty reply (it finished with {finish_reason!r} before "
        "writing anything).",
        "Retry with another model (F4, or --model).",
    )


def web_page_error(content_type: str) -> ProviderError:
    """A 200 answer that is a web page: a captive portal or a proxy's login page, usually."""
    return ProviderError(
        ErrorKind.BAD_RESPONSE,
        f"The server answered with a web page, not an OpenAI-compatible stream ({content_type}).",
        "Check the base URL; a network login page or a proxy may be in the way. Then retry.",
    )


def error_in_reply(
    body: object, *, partial_text: str = "", secrets: Iterable[str | None] = ()
) -> ProviderError:
    """The server answered 200 but put an error object in the reply (LM Studio does this)."""
    detail = server_detail(body)
    if _is_overflow(body, detail):
        window = window_from_error(body)
        return ProviderError(
            ErrorKind.CONTEXT_OVERFLOW,
            overflow_message(window),
            OVERFLOW_ACTION,
            partial_text=partial_text,
            detail=detail,
            context_window=window,
            secrets=secrets,
        )
    return ProviderError(
        ErrorKind.BAD_RESPONSE,
        "The server reported an error instead of a reply.",
        "Retry; the server's reason is in the details.",
        partial_text=partial_text,
        detail=detail,
        secrets=secrets,
    )


def unreadable_reply_error(
    detail: str, *, partial_text: str = "", secrets: Iterable[str | None] = ()
) -> ProviderError:
    """The server's reply is not the OpenAI format."""
    return ProviderError(
        ErrorKind.BAD_RESPONSE,
        "The server sent a reply ctxchat could not read.",
        "Check that the base URL points at an OpenAI-compatible server, then retry.",
        partial_text=partial_text,
        detail=detail,
        secrets=secrets,
    )
