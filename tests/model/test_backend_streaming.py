"""Streaming replies through OpenAIBackend: text, usage, reasoning, limits and cancellation."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, cast

import anyio
import httpx2
import openai
import pytest

from ctxchat.model.backend import StreamChunk, Usage
from ctxchat.model.errors import ErrorKind, ProviderError, describe_finish
from ctxchat.model.openai_backend import OpenAIBackend, _chunks_of
from ctxchat.testing.server import Fault, Reply, ScriptedModelServer, count_prompt_tokens

MODEL = "test-model"
MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hello."},
    {"role": "assistant", "content": "Hello."},
    {"role": "user", "content": "Again, please!"},
]


async def collect(
    backend: OpenAIBackend, max_tokens: int | None = None, temperature: float | None = None
) -> list[StreamChunk]:
    stream = backend.stream_reply(
        MESSAGES, model=MODEL, max_tokens=max_tokens, temperature=temperature
    )
    return [chunk async for chunk in stream]


def text_of(chunks: list[StreamChunk]) -> str:
    return "".join(c.text for c in chunks)


async def test_streams_the_scripted_text_in_chunks(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.chunk_size = 5
    model_server.script("Hello there, how are you?")

    chunks = await collect(backend)

    texts = [c.text for c in chunks if c.text]
    assert texts == ["Hello", " ther", "e, ho", "w are", " you?"]
    assert [c.finish_reason for c in chunks if c.finish_reason] == ["stop"]


async def test_sends_exactly_the_given_messages(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    await collect(backend, max_tokens=64, temperature=0.25)

    [body] = model_server.requests
    assert body["messages"] == MESSAGES
    assert body["model"] == MODEL
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 64
    assert body["temperature"] == 0.25
    assert body.headers["authorization"] == "Bearer sk-test-0123456789abcdef"


async def test_leaves_out_unset_options(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    await collect(backend)

    assert set(model_server.requests[0]) == {"model", "messages", "stream", "stream_options"}


async def test_records_usage_with_cached_tokens(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.cached_tokens = 12
    model_server.script("One two three.")

    chunks = await collect(backend)

    usages = [c.usage for c in chunks if c.usage is not None]
    assert usages == [Usage(prompt_tokens=28, completion_tokens=4, cached_tokens=12)]
    assert count_prompt_tokens(MESSAGES) == 28


async def test_usage_without_cache_details_has_no_cached_tokens(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    chunks = await collect(backend)

    [usage] = [c.usage for c in chunks if c.usage is not None]
    assert usage.cached_tokens is None
    assert usage.prompt_tokens == 28


async def test_server_ignoring_stream_options_gives_no_usage(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.ignore_stream_options = True
    model_server.script("Fine.")

    chunks = await collect(backend)

    assert text_of(chunks) == "Fine."
    assert [c.usage for c in chunks if c.usage] == []


async def test_rejected_stream_options_are_retried_without_and_remembered(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.reject_stream_options = True
    model_server.script("First.", "Second.")

    first = await collect(backend)
    second = await collect(backend)

    assert text_of(first) == "First."
    assert text_of(second) == "Second."
    sent_options = ["stream_options" in body for body in model_server.requests]
    assert sent_options == [True, False, False]
    assert backend.sends_usage_option is False
    assert all(body["messages"] == MESSAGES for body in model_server.requests)


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_is_yielded_apart_from_the_text(
    model_server: ScriptedModelServer, backend: OpenAIBackend, field: str
) -> None:
    model_server.script(
        Reply("The answer is 4.", reasoning="2 plus 2 is 4.", reasoning_field=field)
    )

    chunks = await collect(backend)

    assert "".join(c.reasoning for c in chunks) == "2 plus 2 is 4."
    assert text_of(chunks) == "The answer is 4."
    assert all(not (c.text and c.reasoning) for c in chunks)


async def test_reasoning_fault_sends_reasoning_chunks(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.REASONING, reasoning="Hmm, let me see.")
    model_server.script("Done.")

    chunks = await collect(backend)

    assert "".join(c.reasoning for c in chunks) == "Hmm, let me see."
    assert text_of(chunks) == "Done."


async def test_think_tags_in_the_text_become_reasoning(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.chunk_size = 3  # so the tags are split across chunks
    model_server.fail_next(Fault.THINK_TAGS, reasoning="Weigh the options.")
    model_server.script("Take the train.")

    chunks = await collect(backend)

    assert "".join(c.reasoning for c in chunks).strip() == "Weigh the options."
    assert text_of(chunks) == "Take the train."


async def test_think_tags_are_kept_when_splitting_is_off(
    model_server: ScriptedModelServer,
) -> None:
    model_server.fail_next(Fault.THINK_TAGS, reasoning="Hmm.")
    model_server.script("Yes.")
    backend = OpenAIBackend(model_server.base_url, split_think_tags=False)
    try:
        chunks = await collect(backend)
    finally:
        await backend.aclose()

    assert text_of(chunks) == "<think>\nHmm.\n</think>\n\nYes."


async def test_finish_length_is_reported_with_its_sentence(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.FINISH_LENGTH)
    model_server.script("This reply was cut")

    chunks = await collect(backend)

    assert text_of(chunks) == "This reply was cut"
    finish = [c.finish_reason for c in chunks if c.finish_reason]
    assert finish == ["length"]
    assert describe_finish(finish[0]) == (
        "The reply was cut off by the output limit (max tokens). "
        "Raise output_reserve in the [context] config table."
    )
    assert describe_finish("stop") is None


async def test_complete_returns_text_and_usage(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.script(Reply("Summary: all good.", reasoning="thinking"))

    text, usage = await backend.complete(MESSAGES, model=MODEL)

    assert text == "Summary: all good."
    assert usage == Usage(prompt_tokens=28, completion_tokens=6, cached_tokens=None)


async def test_complete_passes_the_request_to_a_callable_script(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.script(lambda body: f"{len(body['messages'])} messages seen")

    text, _ = await backend.complete(MESSAGES, model=MODEL)

    assert text == "4 messages seen"


async def test_complete_raises_truncated_with_the_cut_text(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.FINISH_LENGTH)
    model_server.script("A summary that got cu")

    with pytest.raises(ProviderError) as caught:
        await backend.complete(MESSAGES, model=MODEL)

    assert caught.value.kind is ErrorKind.TRUNCATED_LENGTH
    assert caught.value.partial_text == "A summary that got cu"


async def test_cancelling_keeps_the_partial_text_and_closes_the_stream(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    reply = "word " * 200
    model_server.latency = 0.01
    model_server.script(reply)
    received: list[str] = []
    three_chunks = asyncio.Event()

    async def consume() -> None:
        async for chunk in backend.stream_reply(MESSAGES, model=MODEL):
            received.append(chunk.text)
            if len(received) == 3:
                three_chunks.set()

    task = asyncio.create_task(consume())
    await three_chunks.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    partial = "".join(received)
    assert len(partial) >= 12
    assert len(partial) < len(reply)
    assert reply.startswith(partial)
    assert await asyncio.to_thread(model_server.wait_for_abort, 1, 5.0)
    # The backend is still usable after a cancelled reply.
    model_server.latency = 0
    model_server.script("Still here.")
    assert text_of(await collect(backend)) == "Still here."


async def test_breaking_out_early_closes_the_stream(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.latency = 0.01
    model_server.script("word " * 200)

    stream = backend.stream_reply(MESSAGES, model=MODEL)
    assert isinstance(stream, AsyncGenerator)
    async for _ in stream:
        break
    await stream.aclose()

    assert await asyncio.to_thread(model_server.wait_for_abort, 1, 5.0)


async def test_many_chunks_arrive_in_order(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.chunks = 500

    chunks = await collect(backend)

    texts = [c.text for c in chunks if c.text]
    assert len(texts) == 500
    assert "".join(texts) == " ".join(f"w{i}" for i in range(500))


async def test_the_connection_is_reused_for_the_next_reply(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.script("First.", "Second.")

    first = text_of(await collect(backend))
    second = text_of(await collect(backend))

    assert (first, second) == ("First.", "Second.")
    # The body was read to its end after [DONE], so the client kept the connection.
    assert model_server.requests[0].client == model_server.requests[1].client


async def test_a_connection_closed_before_any_answer_is_tried_again_once(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    """A kept-alive connection the server had closed fails before any answer (seen with
    llama-cpp-python after its window probe): the request goes again, once."""
    model_server.fail_next(Fault.HANG_UP)
    model_server.script("Answered.")

    assert text_of(await collect(backend)) == "Answered."
    assert len(model_server.requests) == 2


async def test_a_server_that_hangs_up_twice_is_a_connection_error(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    model_server.fail_next(Fault.HANG_UP)
    model_server.fail_next(Fault.HANG_UP)

    with pytest.raises(ProviderError) as caught:
        await collect(backend)
    assert caught.value.kind is ErrorKind.CONNECTION
    assert len(model_server.requests) == 2


async def test_chunks_of_an_unexpected_shape_are_read_as_absent(
    model_server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    """A server's odd chunks (null choices, a second choice, a delta that is not an object,
    wrongly typed fields) neither fail the reply nor add to it."""
    odd = [
        {"choices": None},
        {"choices": [{"index": 1, "delta": {"content": "other choice"}}]},
        {"choices": [{"index": 0, "delta": "not an object"}]},
        {"choices": [{"index": 0, "delta": {"content": 7, "reasoning": 8}}]},
        {"choices": [], "usage": {"prompt_tokens": "many", "completion_tokens": 3}},
        [1, 2, 3],
    ]
    model_server.script(Reply(text="Fine.", raw_chunks=tuple(odd)))

    chunks = await collect(backend)

    assert text_of(chunks) == "Fine."
    assert all(not c.reasoning for c in chunks)
    assert Usage(prompt_tokens=None, completion_tokens=3) in [c.usage for c in chunks]


class BrokenBody:
    """A response whose body breaks after its first event, the way `error` breaks it."""

    def __init__(self, error: BaseException) -> None:
        self.http_response = httpx2.Response(200, request=httpx2.Request("POST", "http://x/v1"))
        self._error = error

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        yield b'data: {"choices": [{"index": 0, "delta": {"content": "Hel"}}]}\n\n'
        raise self._error


@pytest.mark.parametrize(
    "error",
    [
        httpx2.ReadError("connection reset"),
        ssl.SSLError("record layer failure"),
        anyio.EndOfStream(),  # a TLS connection dropping, which httpx does not convert
    ],
    ids=["read-error", "ssl-error", "end-of-stream"],
)
async def test_a_body_that_breaks_is_a_connection_error(error: BaseException) -> None:
    """As openai itself raises it, so the reply is marked interrupted with its text kept."""
    # Only the two attributes BrokenBody has are read from the response.
    chunks = _chunks_of(cast("openai.AsyncAPIResponse[Any]", BrokenBody(error)))
    first = await anext(chunks)
    assert first["choices"][0]["delta"]["content"] == "Hel"
    with pytest.raises(openai.APIConnectionError) as raised:
        await anext(chunks)
    assert raised.value.message.startswith(type(error).__name__)
