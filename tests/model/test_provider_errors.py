"""Every failure of a model server reaches the user as one kind, one sentence and one action."""

from __future__ import annotations

import socket
import traceback
from collections.abc import Callable
from typing import Any

import pytest

from ctxchat.model.backend import StreamChunk
from ctxchat.model.errors import (
    ErrorKind,
    ProviderError,
    classify_status,
    parse_retry_after,
    redact,
    stopped_by_user,
    window_from_error,
)
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.testing.server import Fault, ScriptedModelServer

MODEL = "test-model"
API_KEY = "sk-test-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "Tell me a story."}]
STORY = "Once upon a time there was a tiny model."  # 7 chunks of 6 characters


async def failure(backend: OpenAIBackend, model: str = MODEL) -> tuple[ProviderError, str]:
    """Run a reply to its failure; return the error and the text received before it."""
    received: list[StreamChunk] = []
    with pytest.raises(ProviderError) as caught:
        async for chunk in backend.stream_reply(MESSAGES, model=model):
            received.append(chunk)
    return caught.value, "".join(c.text for c in received)


async def test_server_down_is_a_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    backend = OpenAIBackend(f"http://127.0.0.1:{port}/v1", API_KEY, connect_timeout=1.0)
    try:
        error, _ = await failure(backend)
    finally:
        await backend.aclose()

    assert error.kind is ErrorKind.CONNECTION
    assert str(error) == (
        f"Could not connect to the model server at http://127.0.0.1:{port}/v1. "
        "Check that the server is running and that the base URL is right."
    )


async def test_wrong_key_is_an_auth_error_and_never_echoes_the_key(
    make_backend: Callable[..., OpenAIBackend],
) -> None:
    with ScriptedModelServer(requires_key="sk-the-right-key-000000") as server:
        error, _ = await failure(make_backend(server, "my-wrong-secret-key"))

    assert error.kind is ErrorKind.AUTH
    assert error.status == 401
    assert str(error) == (
        "The server rejected the API key (401 Unauthorized). "
        "Check the key in your provider profile or in OPENAI_API_KEY."
    )
    # The server echoed the key back; it must not survive anywhere in the error.
    assert error.detail == "Incorrect API key provided: [redacted]."
    assert "my-wrong-secret-key" not in repr(error)
    assert "my-wrong-secret-key" not in "".join(traceback.format_exception(error))


async def test_a_profile_header_holding_the_key_is_redacted_like_a_key() -> None:
    """A gateway key given as a profile header replaces the API key and never shows."""
    with ScriptedModelServer(requires_key="sk-the-right-key-000000") as server:
        backend = OpenAIBackend(
            server.base_url,
            None,
            headers={"Authorization": "Bearer gateway-wrong-secret", "X-Title": "Incorrect"},
        )
        try:
            error, _ = await failure(backend)
        finally:
            await backend.aclose()
        sent = {name.lower(): value for name, value in server.requests[0].headers.items()}
        assert sent["authorization"] == "Bearer gateway-wrong-secret"

    assert error.kind is ErrorKind.AUTH
    # Only the secret is removed: the value of an ordinary header is a word like any other.
    assert error.detail == "Incorrect API key provided: [redacted]."
    assert "gateway-wrong-secret" not in repr(error)


async def test_right_key_is_accepted(make_backend: Callable[..., OpenAIBackend]) -> None:
    with ScriptedModelServer(requires_key=API_KEY) as server:
        server.script("Welcome.")
        chunks = [c async for c in make_backend(server).stream_reply(MESSAGES, model=MODEL)]

    assert "".join(c.text for c in chunks) == "Welcome."


async def test_forbidden_model_lists_the_other_models(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.FORBIDDEN)

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.FORBIDDEN
    assert error.status == 403
    assert error.available_models == ("other-model",)
    assert str(error) == (
        "The server refused access to the model 'test-model' (403 Forbidden). "
        "Pick a model your key may use: other-model."
    )


async def test_unknown_model_lists_what_the_server_offers(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.reject_unknown_models = True

    error, _ = await failure(backend, model="gpt-9")

    assert error.kind is ErrorKind.UNKNOWN_MODEL
    assert error.status == 404
    assert error.available_models == ("test-model", "other-model")
    assert str(error) == (
        "The server does not know the model 'gpt-9'. Pick one it offers: test-model, other-model."
    )


async def test_wrong_base_url_is_not_found(model_server: ScriptedModelServer) -> None:
    backend = OpenAIBackend(model_server.root_url + "/wrong", API_KEY)
    try:
        error, _ = await failure(backend)
    finally:
        await backend.aclose()

    assert error.kind is ErrorKind.NOT_FOUND
    assert error.message == (
        f"There is no OpenAI-compatible API at {model_server.root_url}/wrong (404 Not Found)."
    )


async def test_rate_limit_honours_retry_after(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.RATE_LIMIT, retry_after=7)

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.RATE_LIMIT
    assert error.retry_after == 7.0
    assert str(error) == (
        "The server is rate-limiting requests (429 Too Many Requests). Wait 7 seconds, then retry."
    )


async def test_rate_limit_without_retry_after(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.RATE_LIMIT, retry_after=None)

    error, _ = await failure(backend)

    assert error.retry_after is None
    assert error.action == "Wait a moment, then retry."


@pytest.mark.parametrize("status", [500, 503])
async def test_server_errors(
    model_server: ScriptedModelServer, backend: OpenAIBackend, status: int
) -> None:
    model_server.fail_next(Fault.SERVER_ERROR, status=status)

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.SERVER
    assert error.status == status
    assert str(error) == (
        f"The model server failed with an internal error ({status}). "
        "Retry in a moment; if it keeps failing, check the server's log."
    )


async def test_server_error_with_an_html_page(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.SERVER_ERROR, status=502, body="<html>Bad Gateway</html>")

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.SERVER
    assert error.detail == "<html>Bad Gateway</html>"


OVERFLOW_SENTENCE = (
    "The conversation is longer than the model's context window (4096 tokens). "
    "Set context_window in the profile to the server's window, then retry."
)


@pytest.mark.parametrize(
    "fault", [Fault.CONTEXT_LENGTH_EXCEEDED, Fault.LLAMA_CPP_CONTEXT, Fault.ERROR_IN_STREAM]
)
async def test_context_overflow_in_each_dialect(
    model_server: ScriptedModelServer, backend: OpenAIBackend, fault: Fault
) -> None:
    model_server.fail_next(fault, n_ctx=4096)

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.CONTEXT_OVERFLOW
    assert error.context_window == 4096
    assert str(error) == OVERFLOW_SENTENCE


async def test_overflow_found_by_the_server_itself(
    make_backend: Callable[..., OpenAIBackend],
) -> None:
    with ScriptedModelServer(flavour="llama.cpp", n_ctx=8, enforce_n_ctx=True) as server:
        error, _ = await failure(make_backend(server))

    assert error.kind is ErrorKind.CONTEXT_OVERFLOW
    assert error.context_window == 8
    assert error.detail == (
        "request (23 tokens) exceeds the available context size (8 tokens), try increasing it"
    )


async def test_error_in_stream_that_is_not_an_overflow(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.ERROR_IN_STREAM, message="Model crashed", after=3)
    model_server.script(STORY)

    error, received = await failure(backend)

    assert error.kind is ErrorKind.BAD_RESPONSE
    assert error.message == "The server reported an error instead of a reply."
    assert error.detail == "Model crashed"
    assert received == "Once upon a time t"
    assert error.partial_text == received


async def test_empty_stream(model_server: ScriptedModelServer, backend: OpenAIBackend) -> None:
    model_server.fail_next(Fault.EMPTY_STREAM)

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.BAD_RESPONSE
    assert str(error) == (
        "The server ended the reply without sending anything. Retry; if it happens again, "
        "the conversation may not fit the server's context window."
    )


async def test_a_web_page_instead_of_a_stream_says_what_arrived(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    page = "<!doctype html><html><body>Sign in to the hotel Wi-Fi</body></html>"
    model_server.fail_next(Fault.SERVER_ERROR, status=200, body=page)

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.BAD_RESPONSE
    assert error.message == (
        "The server answered with a web page, not an OpenAI-compatible stream (text/html)."
    )
    assert "context window" not in str(error)


async def test_a_reply_that_finishes_with_nothing_in_it_is_a_failure(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.script("")

    error, received = await failure(backend)

    assert received == ""
    assert error.kind is ErrorKind.BAD_RESPONSE
    assert str(error) == (
        "The model returned an empty reply (it finished with 'stop' before writing anything). "
        "Retry with another model (F4, or --model)."
    )


async def test_empty_stream_for_a_prompt_near_the_window_is_an_overflow(
    make_backend: Callable[..., OpenAIBackend],
) -> None:
    with ScriptedModelServer(flavour="lmstudio", n_ctx=16) as server:
        backend = make_backend(server)
        await backend.describe_server(MODEL, None)
        server.fail_next(Fault.EMPTY_STREAM)
        long = [{"role": "user", "content": "x" * 200}]
        with pytest.raises(ProviderError) as caught:
            async for _ in backend.stream_reply(long, model=MODEL):
                pass

    assert caught.value.kind is ErrorKind.CONTEXT_OVERFLOW
    assert caught.value.message == (
        "The server sent an empty reply, most likely because the conversation is longer "
        "than its context window."
    )


async def test_dropped_connection_keeps_the_partial_reply(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.DROP, after=3)
    model_server.script(STORY)

    error, received = await failure(backend)

    assert received == "Once upon a time t"
    assert error.kind is ErrorKind.INTERRUPTED
    assert error.partial_text == "Once upon a time t"
    assert str(error) == (
        "The connection dropped in the middle of the reply; the part received so far was kept. "
        "Retry to get the whole reply."
    )
    # The details say what broke it, as the HTTP library put it.
    assert error.detail.startswith("RemoteProtocolError: peer closed connection")


async def test_retry_after_a_drop_gets_the_whole_reply(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.DROP, after=1)
    model_server.script(STORY, STORY)
    await failure(backend)

    chunks = [c async for c in backend.stream_reply(MESSAGES, model=MODEL)]

    assert "".join(c.text for c in chunks) == STORY


@pytest.mark.parametrize("fault", [Fault.DROP, Fault.STALL])
async def test_losing_only_the_end_of_a_finished_stream_is_no_error(
    model_server: ScriptedModelServer, fault: Fault
) -> None:
    model_server.fail_next(fault, after_finish=True, seconds=30)
    model_server.script(STORY)
    backend = OpenAIBackend(model_server.base_url, API_KEY, chunk_timeout=0.3)
    try:
        chunks = [c async for c in backend.stream_reply(MESSAGES, model=MODEL)]
    finally:
        await backend.aclose()

    assert "".join(c.text for c in chunks) == STORY
    assert [c.finish_reason for c in chunks if c.finish_reason] == ["stop"]
    assert [c.usage for c in chunks if c.usage] == []


async def test_stalled_stream_is_stopped_and_keeps_the_partial_reply(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.STALL, after=2, seconds=30)
    model_server.script(STORY)

    error, received = await failure(backend)

    assert received == "Once upon a "
    assert error.kind is ErrorKind.STALLED
    assert error.partial_text == "Once upon a "
    assert str(error) == (
        "The server sent nothing for 0.3 seconds, so the reply was stopped; the part received "
        "so far was kept. Raise chunk_timeout in the [model] config table."
    )


async def test_unreadable_stream(model_server: ScriptedModelServer, backend: OpenAIBackend) -> None:
    model_server.fail_next(Fault.BAD_JSON)

    error, _ = await failure(backend)

    assert error.kind is ErrorKind.BAD_RESPONSE
    assert error.message == "The server sent a reply ctxchat could not read."


async def test_list_models_maps_errors_too(make_backend: Callable[..., OpenAIBackend]) -> None:
    with (
        ScriptedModelServer(requires_key="sk-the-right-key-000000") as server,
        pytest.raises(ProviderError) as caught,
    ):
        await make_backend(server).list_models()

    assert caught.value.kind is ErrorKind.AUTH


FAULTS: list[tuple[Fault, dict[str, Any]]] = [
    (Fault.AUTH, {}),
    (Fault.FORBIDDEN, {}),
    (Fault.UNKNOWN_MODEL, {}),
    (Fault.RATE_LIMIT, {}),
    (Fault.SERVER_ERROR, {}),
    (Fault.CONTEXT_LENGTH_EXCEEDED, {}),
    (Fault.LLAMA_CPP_CONTEXT, {}),
    (Fault.ERROR_IN_STREAM, {"message": f"bad header Authorization: Bearer {API_KEY}"}),
    (Fault.EMPTY_STREAM, {}),
    (Fault.DROP, {}),
    (Fault.STALL, {}),
    (Fault.BAD_JSON, {}),
]


@pytest.mark.parametrize(("fault", "options"), FAULTS, ids=[f.value for f, _ in FAULTS])
async def test_no_error_ever_shows_the_api_key(
    model_server: ScriptedModelServer,
    backend: OpenAIBackend,
    fault: Fault,
    options: dict[str, Any],
) -> None:
    model_server.fail_next(fault, **options)
    model_server.script(STORY)

    error, _ = await failure(backend)

    shown = [str(error), repr(error), error.message, error.action, error.detail]
    shown.append("".join(traceback.format_exception(error)))
    assert not [text for text in shown if API_KEY in text]


# -- the pure pieces ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secrets", "expected"),
    [
        ("Authorization: Bearer abc.def-123", (), "Authorization: Bearer [redacted]"),
        ("key sk-proj-AbCdEf123456 was wrong", (), "key [redacted] was wrong"),
        ("OpenRouter sk-or-v1-0123456789", (), "OpenRouter [redacted]"),
        ("my key is hunter2-secret!", ("hunter2-secret",), "my key is [redacted]!"),
        ("http://user:pa55@host/v1 failed", (), "http://user:***@host/v1 failed"),
        ("short secret abc stays", ("abc",), "short secret abc stays"),
        ("nothing to hide", ("",), "nothing to hide"),
        ("skeleton key", (), "skeleton key"),
    ],
)
def test_redact(text: str, secrets: tuple[str, ...], expected: str) -> None:
    assert redact(text, secrets) == expected


def test_provider_error_redacts_what_it_is_given() -> None:
    error = ProviderError(
        ErrorKind.SERVER,
        "Failed for letmein-please.",
        "Do not use letmein-please.",
        detail="echo: letmein-please",
        secrets=["letmein-please"],
    )

    assert str(error) == "Failed for [redacted]. Do not use [redacted]."
    assert "letmein" not in repr(error)


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, {"message": "Invalid API key"}, ErrorKind.AUTH),
        (403, {"message": "nope"}, ErrorKind.FORBIDDEN),
        (404, {"code": "model_not_found", "message": "x"}, ErrorKind.UNKNOWN_MODEL),
        (404, {"message": 'model "qwen" not found, try pulling it first'}, ErrorKind.UNKNOWN_MODEL),
        (404, "File Not Found", ErrorKind.NOT_FOUND),
        (400, {"message": "The model `foo` does not exist"}, ErrorKind.UNKNOWN_MODEL),
        (400, {"code": "context_length_exceeded", "message": "x"}, ErrorKind.CONTEXT_OVERFLOW),
        (400, {"type": "exceed_context_size_error", "message": "x"}, ErrorKind.CONTEXT_OVERFLOW),
        (400, {"message": "prompt is too long: 9000 tokens"}, ErrorKind.CONTEXT_OVERFLOW),
        (413, "Request Entity Too Large", ErrorKind.CONTEXT_OVERFLOW),
        (
            500,
            {"message": "the request exceeds the available context size"},
            ErrorKind.CONTEXT_OVERFLOW,
        ),
        (400, {"message": "temperature must be <= 2"}, ErrorKind.BAD_REQUEST),
        (422, {"detail": "field required"}, ErrorKind.BAD_REQUEST),
        (429, {"code": "rate_limit_exceeded"}, ErrorKind.RATE_LIMIT),
        (502, "<html>Bad Gateway</html>", ErrorKind.SERVER),
    ],
)
def test_classify_status(status: int, body: object, kind: ErrorKind) -> None:
    assert classify_status(status, body) is kind


@pytest.mark.parametrize(
    ("body", "window"),
    [
        ({"type": "exceed_context_size_error", "n_ctx": 8192, "message": "x"}, 8192),
        ({"message": "This model's maximum context length is 128000 tokens. However"}, 128000),
        ({"error": "loaded with context length of only 4096 tokens, which is not"}, 4096),
        ({"message": "request (9 tokens) exceeds the available context size (8 tokens)"}, 8),
        ({"message": "too long"}, None),
    ],
)
def test_window_from_error(body: object, window: int | None) -> None:
    assert window_from_error(body) == window


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "12"}, 12.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers) == seconds


def test_stopped_by_user_keeps_the_partial_text() -> None:
    error = stopped_by_user("Half a rep")

    assert error.kind is ErrorKind.CANCELLED
    assert error.partial_text == "Half a rep"
    assert str(error) == (
        "You stopped the reply; the part received so far was kept. "
        "Regenerate to get a complete reply."
    )
