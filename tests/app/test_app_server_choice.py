"""The server the session talks to is the one the screen names: `--base-url` survives F4."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.screens.model_picker import ModelPicker

from .app_harness import SIZE, MakeApp, settle, typed


@pytest.fixture
def other_server() -> Iterator[ScriptedModelServer]:
    """A second server, the one named on the command line (`--base-url`)."""
    with ScriptedModelServer(models=["local-a", "local-b"], requires_key=TEST_KEY) as running:
        yield running


async def open_picker(pilot: Pilot[Any]) -> tuple[ModelPicker, list[str]]:
    """F4; the picker and its options' texts."""
    await pilot.press("f4")
    await settle(pilot)
    picker = pilot.app.screen
    assert isinstance(picker, ModelPicker)
    options = picker.query_one(OptionList)
    texts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    return picker, texts


async def choose(pilot: Pilot[Any], picker: ModelPicker, option_id: str) -> None:
    options = picker.query_one(OptionList)
    options.highlighted = options.get_option_index(option_id)
    options.focus()
    await pilot.press("enter")
    await settle(pilot)


async def send(pilot: Pilot[Any], text: str) -> None:
    await typed(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize("option_id", ["m:local-b", "p:test"])
async def test_picking_in_f4_keeps_the_server_named_on_the_command_line(
    make_app: MakeApp,
    server: ScriptedModelServer,
    other_server: ScriptedModelServer,
    option_id: str,
) -> None:
    """Started with `--base-url B` over a config on A: F4 lists B's models and names B for
    the profile in use; whatever is picked there (a model of B, or Enter on the profile),
    the next message goes to B, and the header names B."""
    app, _ = make_app(base_url=other_server.base_url, model="local-a")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker, texts = await open_picker(pilot)
        assert any("model local-b" in text for text in texts)
        profile_line = next(text for text in texts if "profile test" in text)
        assert other_server.base_url in profile_line
        assert server.base_url not in profile_line
        await choose(pilot, picker, option_id)

        screen = app.conversation_screen
        assert screen.session.profile.base_url == other_server.base_url
        host = other_server.base_url.split("//")[1].split("/")[0]
        assert host in str(screen.sub_title)
        await send(pilot, "Hello there")
        assert server.requests == []
        assert other_server.requests[-1]["messages"][-1]["content"] == "Hello there"
        wanted = "local-b" if option_id == "m:local-b" else "local-a"
        assert other_server.requests[-1]["model"] == wanted
