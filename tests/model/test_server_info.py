"""Context window detection for each server flavour, the known-model table and fallbacks."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from ctxchat.chat.window import WindowInfo
from ctxchat.core.server_count import TemplateCost
from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.model.known_models import known_context_window, normalize_model_name
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.testing.server import Fault, ScriptedModelServer, count_prompt_tokens

from ..waiting import PATIENCE, until_true

MODEL = "test-model"

Build = Callable[..., OpenAIBackend]


@pytest.mark.parametrize("nested", [True, False])
async def test_llama_cpp_props(make_backend: Build, nested: bool) -> None:
    with ScriptedModelServer(flavour="llama.cpp", n_ctx=8192, props_nested=nested) as server:
        info = await make_backend(server).describe_server(MODEL, 2048)

    assert (info.kind, info.context_window, info.window_source) == ("llama.cpp", 8192, "server")
    assert info.tokenizer is True
    assert info.warnings == ()
    assert info.base_url == server.base_url
    assert info.model == MODEL


async def test_ollama_with_num_ctx(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="ollama", n_ctx=8192) as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.kind, info.context_window, info.window_source) == ("ollama", 8192, "server")
    assert info.warnings == ()


async def test_ollama_default_num_ctx_is_warned_about(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="ollama", n_ctx=None, trained_ctx=131072) as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.kind, info.context_window, info.window_source) == ("ollama", 4096, "default")
    assert info.warnings == (
        "Ollama runs this model with its default num_ctx (usually 4096 tokens) although the "
        "model supports 131072 and silently drops the start of longer prompts; set num_ctx in a "
        "Modelfile or OLLAMA_CONTEXT_LENGTH on the server, and set the context window to match.",
    )


async def test_ollama_default_num_ctx_with_a_configured_window(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="ollama", n_ctx=None) as server:
        info = await make_backend(server).describe_server(MODEL, 16384)

    assert (info.context_window, info.window_source) == (16384, "config")
    assert len(info.warnings) == 1


async def test_lmstudio_loaded_context_length(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="lmstudio", n_ctx=12000, trained_ctx=32768) as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.kind, info.context_window, info.window_source) == ("lmstudio", 12000, "server")
    assert info.warnings == ()


async def test_lmstudio_model_not_loaded(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="lmstudio", n_ctx=None, trained_ctx=32768) as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.context_window, info.window_source) == (32768, "server")
    assert info.warnings == (
        "LM Studio has not loaded 'test-model' yet and may load it with less than its maximum "
        "of 32768 tokens; check the loaded context length.",
    )


async def test_vllm_max_model_len(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="vllm", n_ctx=32000) as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.kind, info.context_window, info.window_source) == ("vllm", 32000, "server")
    assert (info.tokenizer, info.tokenizer_name) == (True, "vllm")


async def test_a_model_list_just_received_serves_the_window_it_lists(make_backend: Build) -> None:
    """vLLM lists each model's window: the list asked for once tells it, and the ids."""
    with ScriptedModelServer(flavour="vllm", n_ctx=32000) as server:
        backend = make_backend(server)
        listing = await backend.model_listing()
        info = await backend.describe_server(MODEL, None, listing=listing)

    assert listing.ids == (MODEL,)
    assert (info.kind, info.context_window, info.window_source) == ("vllm", 32000, "server")
    assert [r.path for r in server.other_requests].count("/v1/models") == 1


async def test_llama_cpp_python_window_is_probed_once(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="llama-cpp-python", n_ctx=4096) as server:
        backend = make_backend(server)
        info = await backend.describe_server(MODEL, None)
        again = await backend.describe_server(MODEL, None)

    assert (info.kind, info.context_window, info.window_source) == (
        "llama-cpp-python",
        4096,
        "probed",
    )
    assert (info.tokenizer, info.tokenizer_name) == (True, "llama-cpp-python")
    assert info.warnings == ()
    assert (again.context_window, again.window_source) == (4096, "probed")
    # One over-long request, refused before the model reads it, and one short request that
    # calibrates the chat template; the second answer is cached.
    over_long = [r for r in server.requests if len(r["messages"][-1]["content"]) > 100_000]
    assert len(over_long) == 1 and over_long[0]["max_tokens"] == 1
    assert len(server.requests) == 2


async def test_llama_cpp_python_window_probe_that_times_out(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="llama-cpp-python") as server:
        server.fail_next(Fault.STALL, seconds=30)
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.kind, info.context_window, info.window_source) == (
        "llama-cpp-python",
        2048,
        "default",
    )
    assert info.warnings == (
        "llama-cpp-python does not report its context size, and asking it timed out (--n_ctx, "
        "2048 unless set); set the context window to match the server.",
    )


async def test_llama_cpp_python_that_never_refuses_keeps_the_default(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="llama-cpp-python", n_ctx=None) as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.context_window, info.window_source) == (2048, "default")
    assert info.warnings == (
        "llama-cpp-python does not report its context size, and asking it got an answer "
        "without it (HTTP 200) (--n_ctx, 2048 unless set); set the context window to match "
        "the server.",
    )


async def test_window_learned_from_an_overflow_error(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="llama-cpp-python", n_ctx=None) as server:
        backend = make_backend(server)
        server.fail_next(Fault.CONTEXT_LENGTH_EXCEEDED, n_ctx=4096)
        with pytest.raises(ProviderError):
            async for _ in backend.stream_reply([{"role": "user", "content": "hi"}], model=MODEL):
                pass
        info = await backend.describe_server(MODEL, 2048)

    assert (info.context_window, info.window_source) == (4096, "learned from an error")
    assert info.warnings == ()


async def test_llama_cpp_python_refuses_a_long_stream_with_silence_and_is_understood(
    make_backend: Build,
) -> None:
    with ScriptedModelServer(flavour="llama-cpp-python", n_ctx=2048) as server:
        backend = make_backend(server)
        with pytest.raises(ProviderError) as caught:
            text = "word " * 3000
            async for _ in backend.stream_reply([{"role": "user", "content": text}], model=MODEL):
                pass

    assert caught.value.kind is ErrorKind.CONTEXT_OVERFLOW
    assert caught.value.context_window == 2048
    assert caught.value.message == (
        "The server sent an empty reply: the conversation is longer than its context window "
        "(2048 tokens)."
    )


async def test_an_empty_reply_that_fits_is_not_taken_for_an_overflow(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="llama-cpp-python", n_ctx=2048) as server:
        backend = make_backend(server)
        server.fail_next(Fault.EMPTY_STREAM)
        with pytest.raises(ProviderError) as caught:
            async for _ in backend.stream_reply([{"role": "user", "content": "hi"}], model=MODEL):
                pass

    assert caught.value.kind is ErrorKind.BAD_RESPONSE
    assert caught.value.context_window is None


async def test_a_window_that_shrinks_after_a_restart_is_learned(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="llama-cpp-python", n_ctx=4096) as server:
        backend = make_backend(server)
        before = await backend.describe_server(MODEL, None)
        server.n_ctx = 2048  # restarted with a smaller --n_ctx
        with pytest.raises(ProviderError) as caught:
            text = "word " * 3000
            async for _ in backend.stream_reply([{"role": "user", "content": text}], model=MODEL):
                pass
        after = await backend.describe_server(MODEL, None)

    assert (before.context_window, before.window_source) == (4096, "probed")
    assert caught.value.context_window == 2048
    assert (after.context_window, after.window_source) == (2048, "learned from an error")


async def test_known_model_from_the_table(make_backend: Build) -> None:
    with ScriptedModelServer(models=["gpt-4o"]) as server:
        info = await make_backend(server).describe_server("gpt-4o", 8000)

    assert (info.kind, info.context_window, info.window_source) == (
        "openai-compatible",
        128000,
        "table",
    )
    assert info.warnings == (
        "The server does not report its context size; 128000 tokens is the model's documented "
        "window, and the server may run it with less.",
    )


async def test_unknown_model_uses_the_configured_window(make_backend: Build) -> None:
    with ScriptedModelServer() as server:
        info = await make_backend(server).describe_server(MODEL, 6000)

    assert (info.context_window, info.window_source) == (6000, "config")


async def test_unknown_model_without_configuration_uses_the_default(make_backend: Build) -> None:
    with ScriptedModelServer() as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.kind, info.context_window, info.window_source) == (
        "openai-compatible",
        4096,
        "default",
    )
    assert info.tokenizer is False
    # The window assumed before the server is asked is the same: it does not jump at start-up.
    before = WindowInfo.without_server(MODEL, 0)
    assert (before.context_window, before.source) == (4096, "default")
    assert before.warnings == (
        f"The context window of {MODEL} is unknown; assuming 4,096 tokens. Set "
        "context_window in the config to be sure.",
    )


async def test_model_missing_from_the_server_list_is_warned_about(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="llama.cpp", models=["a", "b"]) as server:
        info = await make_backend(server).describe_server("c", None)

    assert info.warnings == ("The server does not list the model 'c'; it offers: a, b.",)


async def test_server_down_still_gives_an_answer(make_backend: Build) -> None:
    server = ScriptedModelServer().start()
    backend = make_backend(server)
    server.stop()

    info = await backend.describe_server("gpt-4.1-mini", None)

    assert (info.kind, info.context_window, info.window_source) == (
        "openai-compatible",
        1047576,
        "table",
    )


@pytest.mark.parametrize("flavour", ["llama.cpp", "llama-cpp-python", "vllm"])
async def test_count_tokens_with_the_server_tokenizer(make_backend: Build, flavour: str) -> None:
    with ScriptedModelServer(flavour=flavour) as server:
        backend = make_backend(server)
        count = await backend.count_tokens("Hello, world! How are you?")
        again = await backend.count_tokens("one two")

    assert (count, again) == (8, 2)


async def test_count_tokens_without_a_tokenizer(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="ollama") as server:
        assert await make_backend(server).count_tokens("Hello") is None


@pytest.mark.parametrize("fault", ["garbage", "error", "stall"])
@pytest.mark.parametrize("flavour", ["llama.cpp", "llama-cpp-python", "vllm"])
async def test_a_tokenizer_that_goes_bad_counts_nothing(
    make_backend: Build, flavour: str, fault: str
) -> None:
    with ScriptedModelServer(flavour=flavour) as server:
        backend = make_backend(server)
        first = await backend.count_tokens("one two")
        server.tokenizer_fault = fault
        later = await backend.count_tokens("one two")

    assert (first, later) == (2, None)


@pytest.mark.parametrize("flavour", ["llama-cpp-python", "vllm"])
async def test_the_chat_template_is_calibrated_once(make_backend: Build, flavour: str) -> None:
    with ScriptedModelServer(flavour=flavour) as server:
        backend = make_backend(server)
        info = await backend.describe_server(MODEL, None)
        await backend.describe_server(MODEL, None)

    # The scripted server's template: 3 tokens a message, 3 to prime the reply.
    assert info.template == TemplateCost(per_message=3.0, drops_system=False)
    calibrations = [r for r in server.requests if "temperature" in r]
    assert len(calibrations) == 1
    assert calibrations[0]["messages"][0]["role"] == "system"


async def test_llama_cpp_calibrates_its_template_from_the_rendering_once(
    make_backend: Build,
) -> None:
    with ScriptedModelServer(flavour="llama.cpp") as server:
        backend = make_backend(server)
        info = await backend.describe_server(MODEL, None)
        await backend.describe_server(MODEL, None)

    # ChatML on the scripted tokenizer: a BOS, 11 tokens around each message's content and
    # 6 to prime the reply, over a system message and a user message.
    assert info.template == TemplateCost(per_message=(1 + 2 * 11 + 6) / 3, drops_system=False)
    rendered = [r for r in server.other_requests if r.path == "/apply-template"]
    assert len(rendered) == 1
    assert rendered[0]["messages"][0]["role"] == "system"
    assert server.requests == []  # the model never ran


async def test_a_template_that_drops_system_messages_is_found(make_backend: Build) -> None:
    def without_system(messages: Sequence[Mapping[str, Any]]) -> int:
        return count_prompt_tokens([m for m in messages if m.get("role") != "system"])

    with ScriptedModelServer(flavour="llama-cpp-python", prompt_tokens=without_system) as server:
        by_usage = await make_backend(server).describe_server(MODEL, None)
    with ScriptedModelServer(flavour="llama.cpp", drops_system=True) as server:
        by_rendering = await make_backend(server).describe_server(MODEL, None)

    assert by_usage.template is not None and by_usage.template.drops_system
    assert by_rendering.template is not None and by_rendering.template.drops_system


async def test_no_calibration_without_a_tokenizer(make_backend: Build) -> None:
    with ScriptedModelServer(flavour="ollama") as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert info.template is None
    assert server.requests == []


@pytest.mark.parametrize("fault", ["garbage", "error"])
async def test_a_bad_tokenizer_is_not_taken_for_one(make_backend: Build, fault: str) -> None:
    with ScriptedModelServer(flavour="llama.cpp", tokenizer_fault=fault) as server:
        info = await make_backend(server).describe_server(MODEL, None)

    assert (info.kind, info.tokenizer, info.tokenizer_name) == ("llama.cpp", False, None)


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4o", 128000),
        ("gpt-4o-mini-2024-07-18", 128000),
        ("openai/gpt-4o", 128000),
        ("GPT-4.1-mini", 1047576),
        ("gpt-5", 400000),
        ("gpt-5-mini", 400000),
        ("gpt-4", 8192),
        ("gpt-4-0613", 8192),
        ("gpt-4-turbo-2024-04-09", 128000),
        ("gpt-3.5-turbo", 16385),
        ("o1", 200000),
        ("o3-mini", 200000),
        ("o4-mini", 200000),
        ("llama3.1:8b", 131072),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", 131072),
        ("llama3:8b", 8192),
        ("qwen2.5:7b-instruct", 32768),
        ("mistral-nemo:12b", 131072),
        ("gemma3:270m", 32768),
        ("gemma3:12b", 131072),
        ("hf.co/unsloth/gemma-3-270m-it-GGUF:Q4_K_M", 32768),
        ("anthropic/claude-3.5-sonnet", 200000),
        ("my-finetune", None),
        ("", None),
    ],
)
def test_known_context_window(model: str, window: int | None) -> None:
    assert known_context_window(model) == window


def test_normalize_model_name() -> None:
    assert normalize_model_name(" OpenRouter/Meta-Llama/Llama-3.3-70B ") == "llama-3.3-70b"


async def test_counting_waits_while_a_reply_streams_so_llama_cpp_python_does_not_cut_it(
    make_backend: Build,
) -> None:
    """llama-cpp-python ends a streamed reply when another request arrives while it streams
    (its `interrupt_requests`): a token count asked meanwhile must wait for the reply."""
    words = [f"word{i} " for i in range(40)]
    with ScriptedModelServer(flavour="llama-cpp-python", chunk_size=1, latency=0.01) as server:
        server.script("".join(words))
        backend = make_backend(server)
        received: list[str] = []
        count: asyncio.Task[int | None] | None = None
        async for chunk in backend.stream_reply([{"role": "user", "content": "Hi"}], model=MODEL):
            received.append(chunk.text)
            if count is None and chunk.text:
                count = asyncio.ensure_future(backend.count_tokens("one two"))
        assert count is not None
        assert await count == 2

    assert "".join(received) == "".join(words)


async def test_a_count_woken_as_a_reply_ends_waits_for_the_reply_begun_meanwhile(
    make_backend: Build,
) -> None:
    """A count that waited for one reply must not go out during the next one, begun before
    the count's task ran again: llama-cpp-python would end that reply early. The count's
    request is held on its way until the second reply was asked for, so that it arrives
    while that reply streams if it was sent then."""
    words = "".join(f"word{i} " for i in range(40))
    hello = [{"role": "user", "content": "Hi"}]
    with ScriptedModelServer(flavour="llama-cpp-python", chunk_size=6, latency=0.01) as server:
        server.script(words, words)
        backend = make_backend(server)
        assert await backend.count_tokens("warm") == 1  # the tokenizer is known
        server.asides_held = on_its_way = threading.Event()

        def release_once_the_second_reply_is_asked() -> None:
            server.wait_for_requests(2, timeout=PATIENCE)
            on_its_way.set()

        threading.Thread(target=release_once_the_second_reply_is_asked, daemon=True).start()
        count: asyncio.Task[int | None] | None = None
        async for chunk in backend.stream_reply(hello, model=MODEL):
            if count is None and chunk.text:
                count = asyncio.ensure_future(backend.count_tokens("one two"))
        # The next reply begins at once, without letting the waiting count run first.
        second = [chunk.text async for chunk in backend.stream_reply(hello, model=MODEL)]
        assert count is not None
        assert await count == 2

    assert "".join(second) == words


async def test_a_count_asked_once_the_backend_is_closed_ends_quietly(make_backend: Build) -> None:
    """Counting runs in the background: a count still to come when the app closes the backend
    gives no count, not an error that no one is left to read."""
    with ScriptedModelServer(flavour="llama-cpp-python") as server:
        backend = make_backend(server)
        assert await backend.count_tokens("one two") == 2
        await backend.aclose()

        assert await backend.count_tokens("one two") is None


async def test_a_model_slower_than_the_probes_still_calibrates_its_template() -> None:
    """The calibration is answered by the model itself: a small model on a busy machine
    reads slowly, and it waits as long as a reply may take to start, not a probe's while."""
    with ScriptedModelServer(flavour="llama-cpp-python") as server:
        backend = OpenAIBackend(server.base_url, window_probe_timeout=0.05)
        server.reading_held = reading = threading.Event()

        def release_once_asked() -> None:
            until_true(lambda: any("temperature" in r for r in server.requests))
            # Well past the probes' timeout: before, the calibration gave up here.
            time.sleep(0.5)
            reading.set()

        releaser = threading.Thread(target=release_once_asked, daemon=True)
        releaser.start()
        try:
            info = await backend.describe_server(MODEL, None)
        finally:
            reading.set()
            await backend.aclose()

    assert info.template == TemplateCost(per_message=3.0, drops_system=False)
