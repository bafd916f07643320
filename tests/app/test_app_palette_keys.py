"""The command palette names each command's key, and where it works: a key the footer has
no room for (ctrl+y copies a code block) is found there, as the user remapped it."""

from __future__ import annotations

from typing import Any

from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot

from .app_harness import SIZE, MakeApp, settle, until


async def palette_lines(pilot: Pilot[Any], search: str) -> list[str]:
    """Ctrl+P, `search` typed: the palette's commands as drawn (title and help)."""
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    await pilot.press(*search)
    commands = pilot.app.screen.query_one(CommandList)
    await until(pilot, lambda: commands.option_count > 0)
    await settle(pilot)
    return [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]


async def test_a_command_says_its_key_and_where_it_works(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = await palette_lines(pilot, "copy code block")
        found = next(line for line in lines if "message: copy code block" in line)
        assert found.endswith("· ctrl+y on a selected message")
        await pilot.press("escape")
        lines = await palette_lines(pilot, "inspect")
        assert any(line.endswith("· f2") for line in lines)


async def test_a_remapped_key_is_the_one_named(make_app: MakeApp) -> None:
    app, _ = make_app(extra='[keys]\n"message.copy_code" = "f7"\n')
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = await palette_lines(pilot, "copy code block")
        found = next(line for line in lines if "message: copy code block" in line)
        assert found.endswith("· f7 on a selected message")


async def test_the_memory_panels_commands_run_from_the_palette(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.conversation_screen.side.memory_panel
        for search, flag in (("sort by use", "_by_use"), ("hide or show", "_hide_left_out")):
            before: bool = getattr(panel, flag)

            def switched(flag: str = flag, before: bool = before) -> bool:
                return bool(getattr(panel, flag) != before)

            lines = await palette_lines(pilot, search)
            assert lines and search in lines[0]
            await pilot.press("enter")
            await until(pilot, switched)
