"""First-run discovery of local model servers on loopback."""

from __future__ import annotations

import asyncio
import socket

from ctxchat.model.discovery import FoundServer, UrlAnswer, probe_local_servers, probe_url
from ctxchat.testing.server import ScriptedModelServer


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# Servers that are there get as long as a loaded machine needs to answer: the timeout only
# bounds the wait for ports where nothing answers, which these tests do not measure.
ANSWERS = 10.0


async def test_finds_each_kind_on_overridden_ports() -> None:
    with (
        ScriptedModelServer(flavour="ollama", models=["gemma3:270m"]) as ollama,
        ScriptedModelServer(flavour="lmstudio", models=["qwen2.5-7b"]) as lmstudio,
        ScriptedModelServer(flavour="llama.cpp", models=["gemma"]) as llama,
    ):
        found = await probe_local_servers(
            ANSWERS,
            candidates=[
                ("ollama", ollama.port),
                ("lmstudio", lmstudio.port),
                ("llama.cpp", llama.port),
            ],
        )

    assert found == [
        FoundServer("ollama", ollama.base_url, ("gemma3:270m",)),
        FoundServer("lmstudio", lmstudio.base_url, ("qwen2.5-7b",)),
        FoundServer("llama.cpp", llama.base_url, ("gemma",)),
    ]


async def test_kind_comes_from_the_server_not_the_port() -> None:
    with ScriptedModelServer(flavour="ollama") as server:
        found = await probe_local_servers(ANSWERS, candidates=[("lmstudio", server.port)])

    assert [s.kind for s in found] == ["ollama"]


async def test_plain_openai_server_on_the_llama_cpp_port() -> None:
    with ScriptedModelServer(flavour="llama-cpp-python") as server:
        found = await probe_local_servers(ANSWERS, candidates=[("llama.cpp", server.port)])

    assert found == [FoundServer("openai-compatible", server.base_url, ("test-model",))]


async def test_server_that_needs_a_key_is_reported() -> None:
    with ScriptedModelServer(requires_key="sk-abcdef123456") as server:
        found = await probe_local_servers(ANSWERS, candidates=[("lmstudio", server.port)])

    assert found == [FoundServer("lmstudio", server.base_url, (), needs_key=True)]


async def test_nothing_listening_returns_quickly() -> None:
    ports = [("ollama", free_port()), ("lmstudio", free_port()), ("llama.cpp", free_port())]

    # The wait only guards against a hang; how fast probing is, is measured in bench/discovery.py.
    found = await asyncio.wait_for(probe_local_servers(timeout=0.3, candidates=ports), 30)

    assert found == []


async def test_a_silent_listener_is_given_up_on_after_the_timeout() -> None:
    # Accepts connections (the kernel does) but never answers.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        found = await asyncio.wait_for(
            probe_local_servers(timeout=0.2, candidates=[("ollama", silent.getsockname()[1])]),
            30,  # only guards against a hang: a probe that never gave up would never return
        )

    assert found == []


async def test_a_typed_url_is_asked_like_a_found_server() -> None:
    with ScriptedModelServer(flavour="llama.cpp", models=["gemma", "qwen"]) as server:
        answer = await probe_url(server.base_url + "/")
    assert answer == UrlAnswer(
        "found", FoundServer("llama.cpp", server.base_url, ("gemma", "qwen"))
    )


async def test_a_typed_url_where_nothing_listens() -> None:
    assert await probe_url(f"http://127.0.0.1:{free_port()}/v1") == UrlAnswer("nothing")


async def test_a_typed_url_that_answers_but_not_as_an_openai_server() -> None:
    # The server's root, without /v1: its own endpoints answer, the model list does not.
    with ScriptedModelServer(flavour="llama.cpp") as server:
        answer = await probe_url(server.base_url.removesuffix("/v1") + "/api")
    assert answer == UrlAnswer("not_openai")


async def test_a_typed_url_that_wants_a_key_is_asked_with_the_key_typed() -> None:
    key = "sk-typed-0123456789abcdef"
    with ScriptedModelServer(requires_key=key, models=["m1"]) as server:
        without = await probe_url(server.base_url)
        wrong = await probe_url(server.base_url, "sk-wrong-0123456789abcdef")
        right = await probe_url(server.base_url, key)
    assert (without.outcome, wrong.outcome) == ("needs_key", "bad_key")
    assert right == UrlAnswer("found", FoundServer("openai-compatible", server.base_url, ("m1",)))
