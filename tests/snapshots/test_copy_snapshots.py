"""Copying one code block of a reply that has several: the picker, in a picture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.code_block_picker import CodeBlockPicker

from ..waiting import until
from .snapshot_apps import BuildApp, exchange, steady

SnapCompare = Callable[..., bool]
NARROW = (80, 24)

THREE_BLOCKS = (
    "Create the table:\n\n"
    "```sql\nCREATE TABLE notes (\n  id INTEGER PRIMARY KEY,\n  body TEXT\n);\n```\n\n"
    "Then, from Python:\n\n"
    "```python\nimport sqlite3\nconn = sqlite3.connect('notes.db')\n```\n\n"
    "and check it:\n\n"
    "    sqlite3 notes.db .schema\n"
)


async def pick_a_block(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    await steady(pilot)
    app.conversation_screen.conversation_view.focus()
    await pilot.press("ctrl+y")
    await until(pilot, lambda: isinstance(app.screen, CodeBlockPicker))
    await pilot.press("down")
    await steady(pilot)


class TestCodeBlockPicker:
    def test_three_blocks(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """`Copy which code block?` over the conversation; three entries, each on two lines:
        `1. sql · 4 lines` over a dimmed `CREATE TABLE notes (`, `2. python · 2 lines` over
        `import sqlite3` (highlighted), `3. code · 1 line` over `sqlite3 notes.db .schema`;
        below, `Enter copies; Esc copies nothing.`. The conversation shows dimmed behind."""
        app = build()
        exchange(
            app.workspace.store,
            app.conversation_screen.session.stored_id,
            [("user", "How do I store notes?"), ("assistant", THREE_BLOCKS)],
        )
        assert snap_compare(app, run_before=pick_a_block, terminal_size=NARROW)
