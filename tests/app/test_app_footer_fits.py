"""The footer shows whole keys at 80x24 in every state of the conversation screen: those
that do not fit are left out (the palette lists them), never cut at the edge."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.widgets.footer import KeyFooter

from .app_harness import MakeApp, exchange, seed, settle, stalled_reply, until

NARROW = (80, 24)


def cut_keys(app: CtxChatApp) -> list[str]:
    """The footer keys shown but not whole on screen (past the edge, or under the palette
    key), and the footer's keys when none is shown."""
    footer = app.screen.query_one(KeyFooter)
    shown = [key for key in footer.query_children(FooterKey) if key.display]
    palette = [key for key in shown if key.has_class("-command-palette")]
    edge = palette[0].region.x if palette else footer.region.right
    cut = [
        key.description
        for key in shown
        if key not in palette and (key.region.right > edge or key.region.width == 0)
    ]
    return cut if len(shown) > len(palette) else ["(no key shown)"]


async def fits(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await settle(pilot)
    await until(pilot, lambda: cut_keys(app) == [])


@pytest.mark.parametrize("state", ["idle", "selected", "find", "memory", "side"])
async def test_the_footer_shows_only_whole_keys_at_80x24(make_app: MakeApp, state: str) -> None:
    app, _ = make_app()
    seed(
        app.workspace.store,
        exchange(3),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        screen = app.conversation_screen
        if state == "selected":
            screen.conversation_view.focus()
            await pilot.press("up")
            await until(pilot, lambda: screen.conversation_view.selected_id is not None)
        elif state == "find":
            await pilot.press("ctrl+f", *"answer")
        elif state == "memory":
            await pilot.press("ctrl+b", "f6")
        elif state == "side":
            await pilot.press("ctrl+b")
        await fits(pilot)


async def test_the_footer_shows_only_whole_keys_while_a_reply_streams(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await stalled_reply(pilot, server)
        await pilot.pause()
        await until(pilot, lambda: cut_keys(app) == [])
        await pilot.press("escape")  # stops the reply
        await settle(pilot)
