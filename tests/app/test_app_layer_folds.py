"""Layer panels fold on a click on their header, and stay folded while the user types and
switches conversations; the click leaves typing in the composer."""

from __future__ import annotations

from textual.widgets import Static

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.layer_panel import LayerPanel

from .app_harness import SIZE, MakeApp, exchange, seed, settle, typed


def header(app: CtxChatApp, layer: str) -> str:
    panel = app.query_one(f"#layer-{layer}", LayerPanel)
    return str(panel.query_one(".layer-panel--header", Static).render())


async def test_a_fold_by_click_survives_typing_and_switching_conversations(
    make_app: MakeApp,
) -> None:
    app, _ = make_app()
    store = app.workspace.store
    other = store.conversations.create_conversation("Other", model="gpt-4o").id
    seed(store, exchange(3), conversation_id=other)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        system = app.query_one("#layer-system", LayerPanel)
        assert header(app, "system").startswith("▾ system")

        assert await pilot.click("#layer-system .layer-panel--header")
        await pilot.pause()
        assert system.collapsed and header(app, "system").startswith("▸ system")
        assert (
            app.focused is app.conversation_screen.composer
        )  # the click took no focus: typing goes on

        await pilot.press(*"Hi there")  # each key plans again
        await typed(pilot, " and more")
        assert app.conversation_screen.composer.text == "Hi there and more"
        assert system.collapsed and header(app, "system").startswith("▸ system")
        assert not system.query_one(".layer-panel--body", Static).display

        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        assert system.collapsed and header(app, "system").startswith("▸ system")
        assert not app.query_one("#layer-working", LayerPanel).collapsed

        assert await pilot.click("#layer-system .layer-panel--header")
        await pilot.pause()
        assert not system.collapsed and header(app, "system").startswith("▾ system")


async def test_enter_on_a_focused_layer_panel_still_folds_it(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.query_one("#layer-summary", LayerPanel)
        panel.focus()
        await pilot.press("enter")
        assert panel.collapsed
        await pilot.press("enter")
        assert not panel.collapsed


async def test_typing_on_a_focused_layer_panel_goes_to_the_composer(make_app: MakeApp) -> None:
    """Tab can put the focus on a layer panel; a sentence typed there lands in the
    composer whole, in order, and folds nothing (space and enter fold only while the
    panel still has the focus)."""
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.query_one("#layer-summary", LayerPanel)
        panel.focus()
        await pilot.press(*"great, thanks")  # no pause between keys: a burst
        await settle(pilot)
        assert app.conversation_screen.composer.text == "great, thanks"
        assert app.focused is app.conversation_screen.composer
        assert not panel.collapsed

        app.query_one("#context").focus()  # the scrolling pane that holds the panels
        await pilot.press(*" and bye")
        await settle(pilot)
        assert app.conversation_screen.composer.text == "great, thanks and bye"
