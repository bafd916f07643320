"""Answers that come seconds after their key (memory proposals, the model list) never open
over someone typing: they wait for their key; a key that reaches one before it is drawn
goes to the composer."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from textual import events
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import OptionList

from ctxchat.chat.edits import replace_from
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.extraction import ExtractionReview
from ctxchat.tui.screens.model_picker import ModelPicker

from .app_harness import SIZE, MakeApp, Notes, burst, seed, settle, typed, until

PROPOSALS_READY = "1 memory proposal ready: ^t opens the review."
MODELS_READY = "The model list is ready: f4 opens it."


def one_proposal(app: CtxChatApp, server: ScriptedModelServer) -> threading.Event:
    """A conversation with one exchange; the model's proposal for it is held until the
    returned event is set."""
    question, _ = seed(
        app.workspace.store,
        [("user", "We deploy on Fridays."), ("assistant", "Noted.")],
        conversation_id=app.conversation_screen.session.stored_id,
    )
    proposal = {"kind": "fact", "text": "Deploys happen on Fridays.", "message_id": question.id}
    release = threading.Event()
    server.fail_next(Fault.STALL, until=release)
    server.script(json.dumps([proposal]))
    return release


async def typed_while_waiting(
    pilot: Pilot[Any],
    key: str,
    asked: Callable[[], bool],
    release: threading.Event,
    text: str,
    ready: str,
    notes: Notes,
) -> None:
    """Press `key`; once the server has the request (`asked()`), type `text` as a burst,
    then let the server answer (`release`) and wait for the notification `ready`."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    composer = app.conversation_screen.composer
    before = composer.text
    await pilot.press(key)
    await until(pilot, asked)
    burst(pilot, text)
    await until(pilot, lambda: composer.text == before + text)
    release.set()
    await until(pilot, lambda: ready in notes.messages)
    # Nothing opened over the typing, which goes on where it was.
    assert app.screen is app.conversation_screen
    assert app.focused is composer


async def answered(
    pilot: Pilot[Any], server: ScriptedModelServer, release: threading.Event
) -> None:
    """Ctrl+T; once the server has the request, let it answer."""
    await pilot.press("ctrl+t")
    await until(pilot, lambda: len(server.requests) == 1)
    release.set()


async def asked_again(pilot: Pilot[Any], server: ScriptedModelServer) -> None:
    """Ctrl+T asks the model again (its second request), and the review opens."""
    await pilot.press("ctrl+t")
    await until(pilot, lambda: isinstance(pilot.app.screen, ExtractionReview))
    assert len(server.requests) == 2


def sent(app: CtxChatApp) -> list[str]:
    session = app.conversation_screen.session
    return [
        m.content for m in session.store.messages.messages(session.stored_id) if m.role == "user"
    ]


async def test_proposals_that_come_while_typing_wait_for_ctrl_t(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    release = one_proposal(app, server)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        composer = app.conversation_screen.composer
        await typed_while_waiting(
            pilot,
            "ctrl+t",
            lambda: len(server.requests) == 1,
            release,
            "Next I would like",
            PROPOSALS_READY,
            notes,
        )
        burst(pilot, " to ask")
        await until(pilot, lambda: composer.text == "Next I would like to ask")
        assert app.focused is composer

        await pilot.press("ctrl+t")  # opens what waits: the model is not asked again
        review = app.screen
        assert isinstance(review, ExtractionReview)
        assert review.query_one(OptionList).option_count == 1
        assert len(server.requests) == 1
        await pilot.press("ctrl+a", "ctrl+s")
        await settle(pilot)
        memory = app.conversation_screen.session.memory()
        assert [e.text for e in memory] == ["Deploys happen on Fridays."]
        assert composer.text == "Next I would like to ask"
        assert notes.of("error") == []


async def test_an_enter_that_reaches_the_proposals_before_they_are_drawn_sends_the_draft(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    release = one_proposal(app, server)
    server.script("Fridays it is.")
    pressed: list[bool] = []

    def enter_as_the_review_opens(message: Message) -> None:
        # The first message handled once the review is on the stack: it is not drawn yet.
        stack = app.screen_stack
        if not pressed and stack and isinstance(stack[-1], ExtractionReview):
            pressed.append(True)
            enter = events.Key("enter", "\r")
            enter.set_sender(app)
            app.post_message(enter)

    async with app.run_test(size=SIZE, message_hook=enter_as_the_review_opens) as pilot:
        await settle(pilot)
        await typed(pilot, "And on Mondays?")
        await answered(pilot, server, release)
        await until(pilot, lambda: sent(app) == ["We deploy on Fridays.", "And on Mondays?"])
        await until(pilot, lambda: PROPOSALS_READY in notes.messages)
        # The Enter sent the message; the review it reached first decided nothing.
        assert app.screen is app.conversation_screen
        assert app.conversation_screen.session.memory() == []
        await settle(pilot)
        await pilot.press("ctrl+t")
        assert isinstance(app.screen, ExtractionReview)
        assert len(server.requests) == 2  # the extraction and the message sent
        assert notes.of("error") == []


async def test_proposals_open_at_once_when_nothing_was_typed(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    release = one_proposal(app, server)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answered(pilot, server, release)
        await until(pilot, lambda: isinstance(app.screen, ExtractionReview))
        assert PROPOSALS_READY not in notes.messages


async def test_proposals_wait_in_their_own_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    release = one_proposal(app, server)
    screen = app.conversation_screen
    first = screen.session.stored_id
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await until(pilot, lambda: len(server.requests) == 1)
        await pilot.press("ctrl+n")  # another conversation before the model answers
        await until(pilot, lambda: screen.session.stored_id != first)
        release.set()
        title = app.workspace.store.conversations.get_conversation(first).name
        await until(pilot, lambda: f"In “{title}”: {PROPOSALS_READY}" in notes.messages)
        assert app.screen is screen

        await screen.open_conversation(first)
        await pilot.press("ctrl+t")
        review = app.screen
        assert isinstance(review, ExtractionReview)
        assert len(server.requests) == 1
        await pilot.press("escape")  # cancelled: nothing waits any more
        await settle(pilot)
        await asked_again(pilot, server)


async def test_proposals_whose_messages_were_rewritten_are_asked_again(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    release = one_proposal(app, server)
    screen = app.conversation_screen
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed_while_waiting(
            pilot, "ctrl+t", lambda: len(server.requests) == 1, release, "x", PROPOSALS_READY, notes
        )
        # The messages the model read are gone (as an edit and resend replaces them).
        session = screen.session
        first = session.store.messages.messages(session.stored_id)[0]
        replace_from(session, first.id, "We deploy on Mondays.")
        await screen.reload_conversation()
        await settle(pilot)
        await asked_again(pilot, server)


async def test_a_model_list_that_comes_while_typing_waits_for_f4(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        release = server.models_held = threading.Event()
        listed = len(listings(server)) + 1
        await typed_while_waiting(
            pilot,
            "f4",
            lambda: len(listings(server)) == listed,
            release,
            "Hello there",
            MODELS_READY,
            notes,
        )
        burst(pilot, "\r")  # sends: nothing of a picker took the Enter
        await until(pilot, lambda: sent(app) == ["Hello there"])

        await settle(pilot)
        await pilot.press("f4")
        picker = app.screen
        assert isinstance(picker, ModelPicker)
        options = picker.query_one(OptionList)
        assert options.get_option_index("m:gpt-4o-mini") is not None
        assert len(listings(server)) == listed  # the list kept was shown, not asked again


def listings(server: ScriptedModelServer) -> list[Any]:
    return [r for r in server.other_requests if r.path == "/v1/models"]
