"""A regenerate (and so a retry, an edit sent again) is planned once the server counted and
rendered the request it sends, as a send is: its plan is fitted by the server's own count
of that very request, whichever way it was asked for."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from ctxchat.chat.answering import Resend
from ctxchat.chat.counted_first import regenerate_counted, send_counted
from ctxchat.chat.edits import replace_from
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnEvent, TurnStarted
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import Flavour, ScriptedModelServer

MODEL = "local-model"


@pytest.fixture
def llama_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=[MODEL], flavour=Flavour.LLAMA_CPP, n_ctx=4096) as running:
        yield running


@pytest.fixture
async def counting_session(
    store: Store, llama_server: ScriptedModelServer
) -> AsyncIterator[ChatSession]:
    # Generous: a loaded machine must not turn a slow answer into "no tokenizer".
    backend = OpenAIBackend(llama_server.base_url, probe_timeout=10.0, window_probe_timeout=10.0)
    profile = ProviderProfile(name="local", base_url=llama_server.base_url, model=MODEL)
    settings = Settings(
        profiles={"local": profile},
        default_profile="local",
        context=ContextSettings(system_prompt="You are terse."),
    )
    conversation = store.conversations.create_conversation("counted")
    session = ChatSession(store, settings, profile, conversation.id, backend=backend)
    await session.probe_server()  # as a session a user opens learns its server
    yield session
    await session.aclose()


async def started(events: AsyncIterator[TurnEvent]) -> TurnStarted:
    first: TurnStarted | None = None
    async for event in events:
        if first is None and isinstance(event, TurnStarted):
            first = event
    assert first is not None
    return first


def rendered_messages(server: ScriptedModelServer) -> list[object]:
    return [r["messages"] for r in server.other_requests if r.path == "/apply-template"]


async def test_an_edit_sent_again_is_rendered_by_the_server_before_it_is_sent(
    counting_session: ChatSession, llama_server: ScriptedModelServer
) -> None:
    session = counting_session
    llama_server.script("Port 5432!!! (the default).", "Port 5433!!! then.")
    await started(send_counted(session, "Which port for the database???"))
    question = session.store.messages.newest_message(session.stored_id, role="user")
    assert question is not None
    replace_from(session, question.id, "Which port for the cache, then?!?!")
    turn = await started(regenerate_counted(session, Resend.EDIT))
    sent = llama_server.requests[-1]["messages"]
    # The very request regenerate sent was rendered (and so counted exactly) first ...
    assert sent in rendered_messages(llama_server)
    # ... and its plan is fitted and shown by that count, not by an estimate.
    assert turn.plan.server_tokens is not None
    assert turn.plan.server_tokens == llama_server.prompt_tokens(sent)
