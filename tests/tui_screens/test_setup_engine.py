"""The setup screen's model on this machine: chosen when nothing else is there, Enter on it
starts; the arrows and Enter still pick another choice, and an OpenAI key keeps OpenAI
first."""

from __future__ import annotations

from ctxchat.tui.screens.setup import SetupChoice, SetupScreen
from ctxchat.tui.screens.setup_engine import EngineOffer

from .screen_hosts import ScreenHost

OFFER = EngineOffer("SmolLM2 135M", 98_362_432)


async def test_enter_on_the_model_on_this_machine_starts_with_it() -> None:
    app = ScreenHost(SetupScreen([], openai_key_present=False, engine=OFFER))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("enter")
        assert app.result == SetupChoice("engine", None, "", None)


async def test_the_arrows_and_enter_pick_another_choice_without_starting() -> None:
    app = ScreenHost(SetupScreen([], openai_key_present=False, engine=OFFER))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.press("down", "enter")
        assert screen.provider == "openai"
        assert app.result is ScreenHost.NO_RESULT
        await pilot.press("up", "enter")  # back on it: chosen, and Enter again starts
        assert screen.provider == "engine"
        await pilot.press("enter")
        assert app.result == SetupChoice("engine", None, "", None)


async def test_an_openai_key_keeps_openai_the_choice_made() -> None:
    app = ScreenHost(SetupScreen([], openai_key_present=True, engine=OFFER))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert app.screen.provider == "openai"
