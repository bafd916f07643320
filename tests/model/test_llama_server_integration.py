"""ctxchat against llama.cpp's own server: the engine's xllamacpp serving SmolLM2 135M (in
every CI run), or a `llama-server` binary named by CTXCHAT_LLAMA_SERVER serving Gemma 3 270M
(see `tests/llama_server.py`, and README, "Testing against a real server"). The tests
start the server and stop it. They check the protocol and the counts, not the answers: the
models are small, and replies are kept to a few tokens.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ctxchat.chat.rendered import RenderedRequest, render_request
from ctxchat.chat.turn import TurnFailed, TurnFinished, TurnRetried, TurnStarted, send_message
from ctxchat.chat.window import WindowInfo
from ctxchat.core.history import MessageStatus
from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.model.rendering import RenderedPrompt
from ctxchat.store import Store

from ..llama_server import on_engine, running_llama_server, skip_reason
from .real_sessions import SYSTEM, add_history, model_id, open_session, whole_prompt_tokens

pytestmark = pytest.mark.integration

N_CTX = 4096
SMALL_N_CTX = 1024
MESSAGES = [
    {"role": "system", "content": SYSTEM},
    {"role": "user", "content": "Name a colour."},
]
PARAGRAPH = (
    "The committee met on Tuesday to review the budget for the coming year. After a long "
    "discussion about travel costs, they agreed to postpone the decision until the "
    "auditors had finished their report, which is expected at the end of the month."
)

WHY = skip_reason()
if WHY is not None:
    pytest.skip(WHY, allow_module_level=True)


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """The server as README starts it: -c 4096 -t 2 --jinja."""
    with running_llama_server(N_CTX) as root:
        yield root


@pytest.fixture(scope="module")
def small_server() -> Iterator[str]:
    """A small window, so an overflow is reached, and read again, quickly on a slow CPU."""
    with running_llama_server(SMALL_N_CTX) as root:
        yield root


@pytest.fixture
async def small_backend(small_server: str) -> AsyncIterator[OpenAIBackend]:
    client = OpenAIBackend(f"{small_server}/v1", chunk_timeout=60, first_chunk_timeout=300)
    yield client
    await client.aclose()


@pytest.fixture
async def backend(llama_server: str) -> AsyncIterator[OpenAIBackend]:
    client = OpenAIBackend(f"{llama_server}/v1", chunk_timeout=60, first_chunk_timeout=120)
    yield client
    await client.aclose()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "ctxchat.db") as opened:
        yield opened


async def test_the_probe_finds_its_window_tokenizer_and_template(backend: OpenAIBackend) -> None:
    model = await model_id(backend)

    info = await backend.describe_server(model, None)

    print(f"\n{info.kind}: window {info.context_window} ({info.window_source}); {info.template}")
    assert model.endswith(".gguf")  # llama-server names the model by its path
    assert (info.kind, info.context_window, info.window_source) == ("llama.cpp", N_CTX, "server")
    assert (info.tokenizer, info.tokenizer_name) == (True, "llama.cpp")
    # SmolLM2's template is ChatML; Gemma 3 270M's file carries none and llama.cpp uses
    # ChatML: both have a system role.
    assert info.template is not None and not info.template.drops_system


async def test_the_rendered_prompt_is_what_the_server_counts_for_the_request(
    backend: OpenAIBackend, llama_server: str
) -> None:
    model = await model_id(backend)

    rendering = await backend.render_prompt(MESSAGES, model=model)
    usage = await whole_prompt_tokens(llama_server, model, MESSAGES)

    assert isinstance(rendering, RenderedPrompt)
    print(f"\n{rendering.added!r} + {rendering.text!r}: {rendering.tokens} tokens, usage {usage}")
    assert rendering.text.startswith("<|im_start|>system\nYou are terse.<|im_end|>\n")
    assert rendering.text.endswith("<|im_start|>assistant\n")
    # Gemma's tokenizer adds a start token; SmolLM2's adds none.
    assert rendering.added == ("" if on_engine() else "<bos>")
    assert rendering.tokens == usage


async def test_a_stream_reports_usage_with_cached_tokens(backend: OpenAIBackend) -> None:
    model = await model_id(backend)
    messages = [*MESSAGES[:1], {"role": "user", "content": PARAGRAPH + " Name a colour."}]

    first = [c async for c in backend.stream_reply(messages, model=model, max_tokens=4)]
    again = [c async for c in backend.stream_reply(messages, model=model, max_tokens=4)]

    usages = [c.usage for c in first if c.usage] + [c.usage for c in again if c.usage]
    assert len(usages) == 2
    assert usages[0].prompt_tokens == usages[1].prompt_tokens
    assert usages[0].completion_tokens is not None and 0 < usages[0].completion_tokens <= 4
    # The same prompt again: the server reuses what it already read.
    assert usages[1].cached_tokens is not None and usages[1].cached_tokens > 0
    assert [c.finish_reason for c in again if c.finish_reason] in (["stop"], ["length"])


async def test_the_plan_counted_by_its_rendering_equals_the_servers_usage(
    backend: OpenAIBackend, llama_server: str, store: Store
) -> None:
    model = await model_id(backend)
    session = open_session(store, backend, backend.base_url, model)
    await session.detect_window()
    add_history(session, 3, PARAGRAPH)
    plan = session.plan("Which month is the report expected?")

    rendered = await render_request(session, plan.request_messages())
    counted = session.plan("Which month is the report expected?")
    usage = await whole_prompt_tokens(llama_server, model, counted.request_messages())

    assert isinstance(rendered, RenderedRequest)
    print(f"\nrendered {rendered.tokens}, usage {usage}; {counted.counter_note}")
    assert rendered.tokens == usage
    assert rendered.left_out == ()
    assert rendered.template_tokens is not None and rendered.template_tokens > 0
    assert counted.exact
    assert counted.counter_note == (
        f"exact: server tokenizer, {usage:,} tokens; "
        f"template adds {rendered.template_tokens:,} tokens"
    )


async def test_an_overlong_prompt_is_refused_naming_the_window(
    small_backend: OpenAIBackend,
) -> None:
    model = await model_id(small_backend)
    messages = [{"role": "user", "content": PARAGRAPH * 30}]  # over 1,024 tokens

    with pytest.raises(ProviderError) as refused:
        async for _ in small_backend.stream_reply(messages, model=model, max_tokens=4):
            pass

    assert refused.value.kind is ErrorKind.CONTEXT_OVERFLOW
    assert refused.value.context_window == SMALL_N_CTX


async def test_an_overflow_is_replanned_with_the_window_it_named_and_retried(
    small_backend: OpenAIBackend, store: Store
) -> None:
    model = await model_id(small_backend)
    # A short reply keeps the test quick: the base model may write until the limit.
    session = open_session(store, small_backend, small_backend.base_url, model, output_reserve=8)
    session.server.use_window(
        WindowInfo(32_768, "table")
    )  # as if the model's documented window held
    add_history(session, 16, PARAGRAPH)

    events = [e async for e in send_message(session, "Say one word.")]

    kinds = [type(e) for e in events if isinstance(e, TurnStarted | TurnRetried)]
    assert kinds == [TurnStarted, TurnRetried, TurnStarted]
    assert (session.window.context_window, session.window.source) == (
        SMALL_N_CTX,
        "learned from an error",
    )
    ended = events[-1]
    print(f"\nthe retry: {ended}")
    # The plan packs the window by its own estimate, which this template (ChatML markers this
    # model's vocabulary splits into several tokens each) exceeds: the retry may be refused
    # too. Either way it ends clearly and the message stays.
    if isinstance(ended, TurnFailed):
        assert ended.error.kind is ErrorKind.CONTEXT_OVERFLOW
        assert ended.error.context_window == SMALL_N_CTX
    else:
        assert isinstance(ended, TurnFinished)
        assert ended.reply.status is MessageStatus.COMPLETE
    assert [m.content for m in session.history() if m.role == "user"][-1] == "Say one word."
