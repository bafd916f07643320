"""Drafts outlive the run: what the composer holds when the app ends is there at the next
start, with its conversation, beside drafts another run left meanwhile."""

from __future__ import annotations

import dataclasses

from ctxchat.config.state import load_state, save_state
from ctxchat.testing.server import ScriptedModelServer

from ..waiting import until
from .app_harness import MakeApp

SIZE = (120, 36)


async def test_a_draft_is_kept_beside_another_runs_and_an_emptied_one_goes(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    workspace = app.workspace
    path = workspace.locations.state_file
    async with app.run_test(size=SIZE) as pilot:
        screen = app.conversation_screen
        await until(pilot, lambda: screen.has_session)
        shown = screen.session.conversation_id
        assert shown is not None
        await pilot.press(*"kept for later")
        await until(pilot, lambda: screen.composer.text == "kept for later")
        # Another ctxchat run ended meanwhile, leaving its own draft.
        save_state(path, dataclasses.replace(workspace.state, drafts={777: "theirs"}))
        app.exit()
    assert load_state(path).state.drafts == {777: "theirs", shown: "kept for later"}

    again, _ = make_app()
    async with again.run_test(size=SIZE) as pilot:
        screen = again.conversation_screen
        await until(pilot, lambda: screen.composer.text == "kept for later")
        await pilot.press("ctrl+u")  # cleared: nothing is left to keep
        await until(pilot, lambda: screen.composer.text == "")
        again.exit()
    assert load_state(path).state.drafts == {777: "theirs"}
