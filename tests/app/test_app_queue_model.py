"""A message queued while a reply streams goes to the model and server its conversation
talks to when it is sent (what F4 chose since), whichever conversation is on screen then."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from ctxchat.core.history import MessageStatus
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.model_picker import ModelPicker

from .app_harness import SIZE, MakeApp, burst, settle, until
from .test_app_queue import rows, streaming_first


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Holds the first reply after its first two chunks until set (set at the end anyway)."""
    event = threading.Event()
    yield event
    event.set()


@pytest.fixture
def other_server() -> Iterator[ScriptedModelServer]:
    """A second server, profile `far` of the config."""
    with ScriptedModelServer(models=["far-model"], requires_key=TEST_KEY) as running:
        yield running


def far_profile(server: ScriptedModelServer) -> str:
    return (
        "[profiles.far]\n"
        f'base_url = "{server.base_url}"\n'
        'model = "far-model"\n'
        'api_key_env = "CTXCHAT_TEST_KEY"\n'
    )


async def switch_to(app: CtxChatApp, pilot: Pilot[Any], option_id: str) -> None:
    """F4, then pick `option_id` (`m:MODEL` or `p:PROFILE`) in the picker."""
    await pilot.press("f4")
    await until(pilot, lambda: isinstance(app.screen, ModelPicker))
    options = app.screen.query_one(OptionList)
    await until(pilot, lambda: options.option_count > 0)
    options.highlighted = options.get_option_index(option_id)
    options.focus()
    await pilot.press("enter")
    await until(pilot, lambda: not isinstance(app.screen, ModelPicker))


def models(server: ScriptedModelServer) -> list[tuple[str, str]]:
    """(model, newest user message) of each chat request the server received, in order."""
    return [(r["model"], r["messages"][-1]["content"]) for r in server.requests]


async def queued_in_a_then_in_b(
    app: CtxChatApp, pilot: Pilot[Any], server: ScriptedModelServer, release: threading.Event
) -> int:
    """A reply held streaming in conversation A and a message queued behind it; then a new
    conversation, B, on screen. Returns A's id."""
    screen = app.conversation_screen
    await streaming_first(app, pilot, server, release)
    first = screen.session.conversation_id
    assert first is not None
    burst(pilot, "second, for A\r")
    await until(pilot, lambda: len(rows(app)) == 1)
    await screen.run_action("new_conversation")
    await until(pilot, lambda: screen.session.conversation_id != first)
    return first


async def test_a_message_queued_before_f4_goes_to_the_model_chosen_since(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.conversation_screen
        await streaming_first(app, pilot, server, release)
        burst(pilot, "second\r")
        await until(pilot, lambda: len(rows(app)) == 1)
        await switch_to(app, pilot, "m:gpt-4o-mini")
        await until(pilot, lambda: screen.session.model == "gpt-4o-mini")
        release.set()
        await until(pilot, lambda: len(server.requests) == 2 and not screen.streaming)
        await settle(pilot)
        assert models(server) == [("gpt-4o", "first"), ("gpt-4o-mini", "second")]


async def test_a_queue_keeps_its_conversations_server_when_another_conversation_switches(
    make_app: MakeApp,
    server: ScriptedModelServer,
    other_server: ScriptedModelServer,
    release: threading.Event,
) -> None:
    """Queued in A; in B, F4 picks a profile on another server: A's reply and its queue go
    on with A's own server, and both replies arrive whole."""
    app, notes = make_app(extra=far_profile(other_server))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.conversation_screen
        first = await queued_in_a_then_in_b(app, pilot, server, release)
        await switch_to(app, pilot, "p:far")
        await until(pilot, lambda: screen.session.model == "far-model")
        release.set()
        await until(pilot, lambda: not screen.streaming)
        await settle(pilot)
        assert models(server) == [("gpt-4o", "first"), ("gpt-4o", "second, for A")], notes.messages
        assert other_server.requests == []
        replies = [
            m for m in screen.session.store.messages.messages(first) if m.role == "assistant"
        ]
        assert [m.status for m in replies] == [MessageStatus.COMPLETE] * 2, notes.messages


async def test_a_queue_goes_with_the_model_its_conversation_was_switched_to_while_away(
    make_app: MakeApp, server: ScriptedModelServer, release: threading.Event
) -> None:
    """Queued in A; to B and back to A, F4 there picks another model; to B again: A's
    queued message goes with the model A talks to now."""
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.conversation_screen
        first = await queued_in_a_then_in_b(app, pilot, server, release)
        await screen.open_conversation(first)
        await until(pilot, lambda: len(rows(app)) == 1)
        await switch_to(app, pilot, "m:gpt-4o-mini")
        await until(pilot, lambda: screen.session.model == "gpt-4o-mini")
        await screen.run_action("new_conversation")
        await until(pilot, lambda: screen.session.conversation_id != first)
        assert screen.session.model == "gpt-4o"  # B talks to the default model
        release.set()
        await until(pilot, lambda: len(server.requests) == 2 and not screen.streaming)
        await settle(pilot)
        assert models(server) == [("gpt-4o", "first"), ("gpt-4o-mini", "second, for A")]
