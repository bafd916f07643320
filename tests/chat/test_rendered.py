"""The request as llama.cpp's chat template renders it: its text and tokens, the messages it
leaves out, and what the template adds, on the panels once the server rendered the plan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ctxchat.chat.rendered import NotRendered, RenderedRequest, render_request, rendered_parts
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnFinished, send_message
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings
from ctxchat.core.placement import PlacementChoice
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.server import Flavour, ScriptedModelServer
from ctxchat.testing.server.flavours import render_chatml
from ctxchat.testing.server.script import simple_token_count

MODEL = "gemma"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "ctxchat.db") as opened:
        yield opened


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=[MODEL], flavour=Flavour.LLAMA_CPP) as running:
        yield running


@pytest.fixture
async def backend(server: ScriptedModelServer) -> AsyncIterator[OpenAIBackend]:
    # Generous: a loaded machine must not turn a slow answer into "no tokenizer".
    client = OpenAIBackend(server.base_url, probe_timeout=10.0, window_probe_timeout=10.0)
    yield client
    await client.aclose()


async def open_session(
    store: Store, backend: OpenAIBackend, placement: PlacementChoice = PlacementChoice.AUTO
) -> ChatSession:
    """A session that asked the server what it is (its window, tokenizer and template)."""
    profile = ProviderProfile(name="local", base_url=backend.base_url, model=MODEL)
    settings = Settings(
        profiles={"local": profile},
        default_profile="local",
        context=ContextSettings(system_prompt="You are terse.", system_placement=placement),
    )
    conversation = store.conversations.create_conversation("rendered")
    session = ChatSession(store, settings, profile, conversation.id, backend=backend)
    await session.detect_window()
    assert session.server_counts is not None
    return session


async def test_the_rendered_request_holds_every_message_and_says_what_the_template_adds(
    store: Store, backend: OpenAIBackend
) -> None:
    session = await open_session(store, backend)
    plan = session.plan("Name a colour.")
    messages = plan.request_messages()

    rendered = await render_request(session, messages)

    assert isinstance(rendered, RenderedRequest)
    assert rendered.text == render_chatml(messages)
    assert rendered.added == "<bos>"
    assert rendered.tokens == 1 + simple_token_count(rendered.text)
    assert rendered.content_tokens == simple_token_count("You are terse.") + simple_token_count(
        "Name a colour."
    )
    assert rendered.template_tokens == rendered.tokens - rendered.content_tokens
    assert rendered.left_out == ()
    assert rendered.to_dict(messages) == {
        "text": rendered.text,
        "added_by_tokenizer": "<bos>",
        "tokens": rendered.tokens,
        "template_tokens": rendered.template_tokens,
        "left_out": [],
    }


async def test_a_template_that_drops_the_system_message_shows_it_left_out(
    store: Store, tmp_path: Path
) -> None:
    with ScriptedModelServer(
        models=[MODEL], flavour=Flavour.LLAMA_CPP, drops_system=True
    ) as server:
        async with OpenAIBackend(server.base_url, probe_timeout=10.0) as backend:
            # Kept as a system message on purpose: the rendering shows the template drop it.
            session = await open_session(store, backend, PlacementChoice.SYSTEM)
            messages = session.plan("Name a colour.").request_messages()
            rendered = await render_request(session, messages)
            moved = await open_session(store, backend)
            sent = moved.plan("Name a colour.").request_messages()
            moved_rendering = await render_request(moved, sent)

    # By default the system prompt reaches the model at the start of the first user message.
    assert isinstance(moved_rendering, RenderedRequest)
    assert "You are terse." in moved_rendering.text
    assert moved_rendering.left_out == ()
    assert isinstance(rendered, RenderedRequest)
    assert "You are terse." not in rendered.text
    assert rendered.left_out == (0,)
    assert rendered.to_dict(messages)["left_out"] == [{"index": 0, "role": "system"}]
    # The system text is not counted as content the template wraps.
    assert rendered.content_tokens == simple_token_count("Name a colour.")


async def test_after_a_turn_the_next_plan_is_counted_by_its_rendering(
    store: Store, server: ScriptedModelServer, backend: OpenAIBackend
) -> None:
    session = await open_session(store, backend)
    events = [event async for event in send_message(session, "Hello there, server.")]
    assert isinstance(events[-1], TurnFinished)
    before = len(server.other_requests)

    await session.server.counted()
    plan = session.plan()

    rendered_now = [r for r in server.other_requests[before:] if r.path == "/apply-template"]
    assert [r["messages"] for r in rendered_now] == [plan.request_messages()]
    expected = 1 + simple_token_count(render_chatml(plan.request_messages()))
    contents = sum(simple_token_count(m.content) for m in plan.messages)
    assert plan.exact
    assert plan.counter_note == (
        f"exact: server tokenizer, {expected:,} tokens; "
        f"template adds {expected - contents:,} tokens"
    )
    # With a draft the plan is another request: counted as before, without the rendering.
    drafted = session.plan("And another?")
    assert "template adds" not in drafted.counter_note


async def test_a_server_that_cannot_render_is_not_asked_after_a_turn(
    store: Store, tmp_path: Path
) -> None:
    with ScriptedModelServer(models=[MODEL], flavour=Flavour.LLAMA_CPP_PYTHON) as server:
        async with OpenAIBackend(server.base_url, probe_timeout=10.0) as backend:
            session = await open_session(store, backend)
            first = await render_request(session, session.plan("Hi").request_messages())
            for text in ("One.", "Two."):
                [event async for event in send_message(session, text)]
                await session.server.counted()

    assert isinstance(first, NotRendered) and first.lasting
    assert [r.path for r in server.other_requests].count("/apply-template") == 1


async def test_without_a_server_the_rendering_says_so(store: Store) -> None:
    profile = ProviderProfile(name="local", base_url="http://127.0.0.1:9/v1", model=MODEL)
    settings = Settings(profiles={"local": profile}, default_profile="local")
    conversation = store.conversations.create_conversation("offline")
    session = ChatSession(store, settings, profile, conversation.id, backend=None)

    rendered = await render_request(session, session.plan("Hi").request_messages())

    assert isinstance(rendered, NotRendered)
    assert rendered.reason.startswith("No server was asked (offline)")


def test_the_parts_follow_the_messages_and_leave_the_rest_to_the_template() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "  Hi  "},
        {"role": "user", "content": "gone"},
    ]
    text = "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"

    assert rendered_parts(text, messages) == [
        ("<|im_start|>system\n", None),
        ("Be brief.", 0),
        ("<|im_end|>\n<|im_start|>user\n", None),
        ("Hi", 1),
        ("<|im_end|>\n", None),
    ]
