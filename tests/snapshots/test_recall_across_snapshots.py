"""Recall across conversations in pictures: an item from another conversation of the project
names that conversation and the day it was said."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from ctxchat.tui.app import CtxChatApp

from .snapshot_apps import HOUR, NOW, BuildApp, Clock, planned, say, steady

SnapCompare = Callable[..., bool]
WIDE = (200, 50)
FACT = "For the birdhouse we settled on cedar planks, 19 mm thick, and brass screws."
QUESTION = "Which wood did we pick for the birdhouse?"
NO_SEMANTIC = "[recall]\nsemantic = false"


def birdhouse_said_last_week(app: CtxChatApp, clock: Clock) -> CtxChatApp:
    """The open conversation and `Birdhouse plan`, where the cedar was settled five days
    ago, both in the project `Garden`."""
    session = app.conversation_screen.session
    session.move_to_project("Garden")
    store = app.workspace.store
    clock.now = NOW - 5 * 24 * HOUR
    earlier = store.conversations.create_conversation("Birdhouse plan").id
    store.projects.move_to_project(earlier, session.project_id())
    say(store, earlier, "user", FACT)
    say(store, earlier, "assistant", "Cedar it is; it weathers well outdoors.")
    clock.now = NOW
    return app


def asked(text: str) -> Callable[[Pilot[Any]], Any]:
    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, CtxChatApp)
        screen = app.conversation_screen
        await screen.mounted.wait()
        screen.composer.focus()
        await pilot.pause()
        screen.composer.insert(text)
        await planned(pilot, text)
        await steady(pilot)

    return run


class TestRecallFromAnotherConversation:
    def test_wide(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """A new conversation of the project `Garden`, the draft `Which wood did we pick for
        the birdhouse?`: the recall panel holds `conversation:2/message:1` with `from
        “Birdhouse plan” (2025-01-01): matched birdhouse; score …` (the cedar message of the
        other conversation, said five days before)."""
        app = birdhouse_said_last_week(build(extra=NO_SEMANTIC), clock)
        assert snap_compare(app, run_before=asked(QUESTION), terminal_size=WIDE)
