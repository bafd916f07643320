"""One session per conversation for the run: a conversation opened again is the session it
had, with what it learned and chose there, and work begun on it needs no finding again."""

from __future__ import annotations

import dataclasses

from ctxchat.chat.window import WindowInfo
from ctxchat.core.memory import Mode
from ctxchat.testing.server import ScriptedModelServer

from .app_harness import SIZE, MakeApp, exchange, seed, settle, typed, until


async def test_a_conversation_opened_again_is_the_session_it_had(make_app: MakeApp) -> None:
    app, _ = make_app(context_window=0)  # the server says its window
    screen = app.conversation_screen
    store = app.workspace.store
    first = screen.session
    seed(store, exchange(1), conversation_id=first.stored_id)
    other = store.conversations.create_conversation("Other", model="gpt-4o", profile="test").id
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        await screen.open_conversation(other)
        await settle(pilot)
        assert screen.session is not first
        # What a reply there learned meanwhile (a refusal naming the server's window).
        first.server.use_window(WindowInfo(12_000, "server"))
        await pilot.press("ctrl+o")  # the mode is the run's: switched in another conversation
        await until(pilot, lambda: screen.session.mode is not first.mode)
        await screen.open_conversation(first.stored_id)
        await settle(pilot)

        assert screen.session is first
        plan = screen.last_plan
        assert plan is not None
        assert plan.context_window == 12_000
        assert plan.mode == Mode.OBJECTIVE.value


async def test_a_new_conversation_keeps_its_session_once_its_first_message_gave_it_an_id(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    screen = app.conversation_screen
    server.script("Noted.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: screen.session.conversation_id is not None)
        fresh = screen.session
        await typed(pilot, "The shed roof needs new felt.")
        await pilot.press("enter")
        await settle(pilot)
        other = app.workspace.store.conversations.create_conversation(
            "Other", model="gpt-4o", profile="test"
        ).id

        await screen.open_conversation(other)
        await screen.open_conversation(fresh.stored_id)
        await settle(pilot)
        assert screen.session is fresh


async def test_a_profile_changed_in_the_app_reaches_a_conversation_opened_before(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    screen = app.conversation_screen
    store = app.workspace.store
    first = screen.session
    other = store.conversations.create_conversation("Other", model="gpt-4o", profile="test").id
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await screen.open_conversation(other)
        before = screen.session
        await screen.open_conversation(first.stored_id)
        # As fixing a server in the app does (`take_in_profiles`): the session on screen
        # is given the profiles as the config has them now.
        settings = first.settings
        fixed = {
            name: dataclasses.replace(profile, base_url=profile.base_url + "/")
            for name, profile in settings.profiles.items()
        }
        first.settings = dataclasses.replace(settings, profiles=fixed)

        await screen.open_conversation(other)
        await settle(pilot)
        assert screen.session is not before
        assert screen.session.settings.profiles == fixed
