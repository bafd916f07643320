"""What the tests against real servers share: sessions as a user opens them, stored turns,
the server's own prompt count, and stopping a server process."""

from __future__ import annotations

import subprocess

import httpx2

from ctxchat.chat.session import ChatSession
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store

SYSTEM = "You are terse."


async def model_id(backend: OpenAIBackend) -> str:
    """The one model the server serves."""
    models = await backend.list_models()
    assert len(models) == 1
    return models[0]


def open_session(
    store: Store, backend: OpenAIBackend, base_url: str, model: str, *, output_reserve: int = 0
) -> ChatSession:
    """A session as a user starting `ctxchat --base-url ... --model ...` gets (no window set)."""
    profile = ProviderProfile(name="local", base_url=base_url, model=model)
    settings = Settings(
        profiles={"local": profile},
        default_profile="local",
        context=ContextSettings(system_prompt=SYSTEM, output_reserve=output_reserve),
    )
    conversation = store.conversations.create_conversation("integration")
    return ChatSession(store, settings, profile, conversation.id, backend=backend)


def add_history(session: ChatSession, pairs: int, text: str) -> None:
    """Stored turns (no model run): the user's text and a reply, `pairs` times."""
    for number in range(pairs):
        for role in ("user", "assistant"):
            content = f"{number}. {text}"
            session.store.messages.add_message(
                session.stored_id,
                role,
                content,
                tokens=session.count(role, content),
                exact=session.counter.exact,
                encoding=session.counter.name,
            )
    session.forget_history()


async def whole_prompt_tokens(root: str, model: str, messages: list[dict[str, str]]) -> int:
    """`usage.prompt_tokens` of a non-streamed one-token request for `messages`."""
    async with httpx2.AsyncClient(timeout=120) as client:
        answer = await client.post(
            f"{root}/v1/chat/completions",
            json={"model": model, "messages": messages, "max_tokens": 1, "stream": False},
        )
    answer.raise_for_status()
    return int(answer.json()["usage"]["prompt_tokens"])


def stop(process: subprocess.Popen[str]) -> None:
    """Stop a server: asked first, then killed if it does not go."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
