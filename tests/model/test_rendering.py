"""The prompt as the server's chat template renders it: llama.cpp's `/apply-template` and
`/tokenize`, and every server that cannot render saying so."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.model.rendering import NotRendered, RenderedPrompt
from ctxchat.testing.server import Flavour, ScriptedModelServer

MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Name a colour."},
]
CHATML = (
    "<|im_start|>system\nYou are terse.<|im_end|>\n"
    "<|im_start|>user\nName a colour.<|im_end|>\n"
    "<|im_start|>assistant\n"
)


def paths(server: ScriptedModelServer) -> list[str]:
    return [request.path for request in server.other_requests]


async def test_llama_cpp_renders_the_prompt_and_counts_it_as_its_usage_does(
    make_backend: Callable[..., OpenAIBackend],
) -> None:
    with ScriptedModelServer(flavour=Flavour.LLAMA_CPP, models=["gemma"]) as server:
        backend = make_backend(server)
        rendering = await backend.render_prompt(MESSAGES, model="gemma")
        _, usage = await backend.complete(MESSAGES, model="gemma")

    assert rendering == RenderedPrompt(CHATML, usage.prompt_tokens if usage else -1, "<bos>")
    assert server.other_requests[0].path == "/apply-template"
    assert server.other_requests[0]["messages"] == MESSAGES


@pytest.mark.parametrize(
    "flavour",
    [Flavour.OPENAI, Flavour.OLLAMA, Flavour.LMSTUDIO, Flavour.VLLM, Flavour.LLAMA_CPP_PYTHON],
)
async def test_a_server_that_cannot_render_says_so_and_is_asked_once(
    flavour: Flavour, make_backend: Callable[..., OpenAIBackend]
) -> None:
    with ScriptedModelServer(flavour=flavour, models=["m"]) as server:
        backend = make_backend(server)
        first = await backend.render_prompt(MESSAGES, model="m")
        again = await backend.render_prompt(MESSAGES, model="m")

    assert isinstance(first, NotRendered) and first.lasting
    assert "does not render its chat template" in first.reason
    assert again == first
    assert paths(server) == ["/apply-template"]
    assert not backend.renders


async def test_a_hosted_api_is_not_asked() -> None:
    async with OpenAIBackend("https://api.openai.com/v1", "sk-test") as backend:
        rendering = await backend.render_prompt(MESSAGES, model="gpt-4o")

    assert isinstance(rendering, NotRendered)
    assert rendering.reason.startswith("A hosted API does not show its chat template")
    assert not backend.renders


async def test_a_server_that_does_not_answer_is_asked_again_later() -> None:
    with ScriptedModelServer() as gone:
        port = gone.port  # nothing listens there once it stopped
    async with OpenAIBackend(f"http://127.0.0.1:{port}/v1", probe_timeout=1.0) as backend:
        rendering = await backend.render_prompt(MESSAGES, model="m")
        assert isinstance(rendering, NotRendered) and not rendering.lasting
        assert rendering.reason == (
            "The server did not answer when asked to render its chat template."
        )
        assert backend.renders
        with ScriptedModelServer(flavour=Flavour.LLAMA_CPP, port=port, models=["m"]):
            later = await backend.render_prompt(MESSAGES, model="m")

    assert isinstance(later, RenderedPrompt) and later.text == CHATML


async def test_a_failing_tokenizer_leaves_the_text_uncounted(
    make_backend: Callable[..., OpenAIBackend],
) -> None:
    with ScriptedModelServer(flavour=Flavour.LLAMA_CPP, tokenizer_fault="error") as server:
        rendering = await make_backend(server).render_prompt(MESSAGES, model="test-model")

    assert rendering == RenderedPrompt(CHATML, None, "")


async def test_the_template_cost_is_calibrated_from_the_rendering_without_running_the_model(
    make_backend: Callable[..., OpenAIBackend],
) -> None:
    with ScriptedModelServer(flavour=Flavour.LLAMA_CPP) as server:
        info = await make_backend(server).describe_server("test-model", None)

    assert info.template is not None and not info.template.drops_system
    assert server.requests == []  # no chat request: the model never ran
    assert "/apply-template" in paths(server)
