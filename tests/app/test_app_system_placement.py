"""A server whose chat template drops system messages: what the model would have missed
goes at the start of the first user message, and every surface shows it there."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Static

from ctxchat.core.budget import Layer
from ctxchat.core.placement import CONTEXT_OPENING
from ctxchat.core.plan import SystemPlacement
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.testing.server.script import count_prompt_tokens
from ctxchat.tui.screens.inspector import RequestInspector
from ctxchat.tui.widgets.budget_bar import BudgetBar
from ctxchat.tui.widgets.layer_panel import LayerPanel

from .app_harness import SIZE, MakeApp, exchange, seed, settle, typed, until


def without_system(messages: Sequence[Mapping[str, Any]]) -> int:
    """What a template that drops system messages reports as the prompt's tokens."""
    return count_prompt_tokens([m for m in messages if m.get("role") != "system"])


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    """A llama-cpp-python server whose chat template drops system messages."""
    with ScriptedModelServer(
        flavour="llama-cpp-python",
        models=["gpt-4o"],
        prompt_tokens=without_system,
        requires_key=TEST_KEY,
    ) as running:
        yield running


def panel_text(app: Any, layer: Layer) -> str:
    panel = app.query_one(f"#layer-{layer.value}", LayerPanel)
    return " ".join(str(s.render()) for s in panel.query(Static))


async def test_the_system_content_opens_the_first_user_message_and_the_panels_say_so(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=0)
    seed(
        app.workspace.store,
        exchange(2),
        conversation_id=app.conversation_screen.session.stored_id,
    )
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.conversation_screen
        await until(pilot, lambda: screen.session.server.drops_system)
        await settle(pilot)
        await typed(pilot, "And the third question?")
        plan = screen.last_plan
        assert plan is not None
        assert plan.system_placement is SystemPlacement.FIRST_USER
        assert "sent at the start of the first user message" in panel_text(app, Layer.SYSTEM)
        # The note about the server is whole: wrapped, never cut at the panel's edge.
        bar = app.query_one(BudgetBar)
        lines = str(bar.render()).splitlines()
        assert [line for line in lines if cell_len(line) > bar.size.width] == [], bar.size.width
        assert "go at the start of the first user message instead." in " ".join(
            " ".join(lines).split()
        )

        await pilot.press("f2")
        await settle(pilot)
        inspector = app.screen
        assert isinstance(inspector, RequestInspector)
        body = inspector.body
        assert body["messages"][0]["role"] == "user"
        assert body["messages"][0]["content"].startswith(CONTEXT_OPENING)
        await pilot.press("escape")

        await pilot.press("enter")
        await settle(pilot)
        sent = server.requests[-1]["messages"]
        assert all(m["role"] != "system" for m in sent)
        assert sent[0]["content"].startswith(CONTEXT_OPENING)
        assert "You are a helpful assistant." in sent[0]["content"]
        assert sent[-1]["content"] == "And the third question?"


async def test_keeping_the_system_role_marks_those_layers_as_not_reaching_the_model(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(context_window=0, extra='[context]\nsystem_placement = "system"')
    async with app.run_test(size=SIZE) as pilot:
        screen = app.conversation_screen
        await until(pilot, lambda: screen.session.server.drops_system)
        await settle(pilot)
        await typed(pilot, "Hello")
        plan = screen.last_plan
        assert plan is not None
        assert plan.system_placement is SystemPlacement.DROPPED
        assert "not reaching the model" in panel_text(app, Layer.SYSTEM)
        await pilot.press("enter")
        await settle(pilot)
        assert server.requests[-1]["messages"][0]["role"] == "system"
