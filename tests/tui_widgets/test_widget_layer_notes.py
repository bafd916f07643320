"""A layer's notes and hints are read whole: they wrap at the panel's edge, never cut."""

from __future__ import annotations

import dataclasses

from rich.cells import cell_len

from ctxchat.core.budget import Layer
from ctxchat.tui.widgets.layer_panel import ContextPanels, LayerPanel

from .widget_hosts import HostApp, make_plan

HINT = (
    "sent at the start of the first user message (a user message of its own, as the "
    "conversation starts with a reply): the server's chat template drops system messages"
)
NOTE = "not reaching the model: the server's chat template drops system messages (set it)"


async def test_a_long_hint_and_note_wrap_inside_a_narrow_panel() -> None:
    plan = make_plan()
    layers = tuple(
        dataclasses.replace(lp, hints=(HINT,), notes=(NOTE,)) if lp.layer is Layer.SYSTEM else lp
        for lp in plan.layers
    )
    app = HostApp(lambda: [ContextPanels()])
    async with app.run_test(size=(60, 60)) as pilot:
        panels = app.query_one(ContextPanels)
        panels.update_plan(dataclasses.replace(plan, layers=layers), window_source="config")
        await pilot.pause()
        panel = app.query_one("#layer-system", LayerPanel)
        notes = panel.query_one(".layer-panel--notes")
        shown = [
            "".join(segment.text for segment in strip)
            for strip in notes.render_lines(notes.region.reset_offset)
        ]
        assert all(cell_len(line.rstrip()) <= notes.size.width for line in shown)
        joined = " ".join(" ".join(line.split()) for line in shown)
        assert f"i {HINT}" in joined
        assert f"! {NOTE}" in joined
