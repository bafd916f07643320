"""The app keeps only what is global; the conversation screen owns the conversation on
screen and hears its widgets' messages (see ARCHITECTURE.md, "Who owns which state")."""

from __future__ import annotations

import ast
from pathlib import Path

from textual.app import App

from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp

from .app_harness import MakeApp, settle, shown_messages, typed, until

APP_SOURCE = Path(__file__).resolve().parents[2] / "ctxchat" / "tui" / "app.py"
GLOBAL_STATE = {
    "workspace",
    "conversation_screen",
    "_wanted_theme",
    "_servers",
    "_model_files",  # model files found on this machine, offered at first run
    "_notes",
    "_terminal_watch",  # the terminal the app runs on, global to the run
}
# Textual's own events the app answers; every other message is the screen's.
APP_EVENTS = {"on_mount", "on_event", "on_unmount"}


async def test_after_a_reply_and_a_switch_the_app_holds_nothing_of_a_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("SQLite, with WAL.")
    async with app.run_test(size=(112, 28)) as pilot:
        screen = app.conversation_screen
        await typed(pilot, "Which database?")
        await pilot.press("enter")
        await until(pilot, lambda: shown_messages(app)[-1:] == [("assistant", "SQLite, with WAL.")])
        await settle(pilot)
        first = screen.session.stored_id
        await screen.action_new_conversation()
        await settle(pilot)
        assert screen.session.stored_id != first
        # What the app has beyond any running Textual app is the global state, nothing more
        # (`notify` is the test's recorder of notifications; `__watchers`, Textual's record
        # of the widgets watching the app's reactives, such as the header its title).
        textual = await textual_app_attributes() | {"notify", "__watchers"}
        own = set(vars(app)) - textual
        assert own == GLOBAL_STATE


async def textual_app_attributes() -> set[str]:
    """The instance attributes of a bare Textual app that has run."""
    bare: App[None] = App()
    async with bare.run_test() as pilot:
        await pilot.pause()
        return set(vars(bare))


def test_the_app_handles_no_widget_message() -> None:
    """A widget's message goes to its screen: the app class has no `@on` handler and no
    `on_<widget>_<message>` method."""
    tree = ast.parse(APP_SOURCE.read_text(encoding="utf-8"))
    app_class = next(
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == CtxChatApp.__name__
    )
    methods = [
        node for node in app_class.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    decorated = [
        m.name
        for m in methods
        for d in m.decorator_list
        if isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "on"
    ]
    handlers = {m.name for m in methods if m.name.startswith("on_")}
    assert decorated == []
    assert handlers == APP_EVENTS
