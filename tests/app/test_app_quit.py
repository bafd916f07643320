"""ctrl+q quits from wherever the user is: the conversation, and every dialog over it."""

from __future__ import annotations

import pytest

from .app_harness import SIZE, MakeApp, settle, until


@pytest.mark.parametrize("dialog", ["ctrl+l", "f2", "f3", "f4"])
async def test_ctrl_q_quits_from_a_dialog(make_app: MakeApp, dialog: str) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        await pilot.press(dialog)
        await until(pilot, lambda: app.screen is not main)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running)
