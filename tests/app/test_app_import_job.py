"""The in-app import is a job like the others: on the jobs line with how far it got until it
ends, its results said when it ends, and cancelled by f9 with nothing of it kept."""

from __future__ import annotations

from pathlib import Path

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.screens.import_history import ImportChoice

from ..importers.chatgpt_export import short, trip
from .app_harness import SIZE, MakeApp, settle, until
from .held_history import HeldHistory
from .test_app_jobs import jobs_text

F9 = "f9"


def imported_titles(app: CtxChatApp) -> list[str]:
    store = app.workspace.store
    return sorted(
        c.title for c in store.conversations.list_conversations() if c.origin == "chatgpt"
    )


def start(app: CtxChatApp, held: HeldHistory) -> None:
    """What ctrl+l, ctrl+o and the file chosen do (the dialog takes only regular files)."""
    screen = app.conversation_screen
    screen.conversation_dialogs.start_import(screen.session, ImportChoice(held.path, "chatgpt"))


async def test_the_import_shows_how_far_it_got_then_what_came(
    make_app: MakeApp, tmp_path: Path
) -> None:
    app, notes = make_app()
    held = HeldHistory(tmp_path, [short("c1", "Hello", "Hi!"), trip()])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            start(app, held)
            await until(pilot, lambda: "1 conversation read" in jobs_text(app))
            assert jobs_text(app).startswith(
                "Importing conversations.json · 1 conversation read · "
            )
            assert jobs_text(app).endswith(" s · f9 cancels")
            assert imported_titles(app) == []  # one transaction: nothing seen before its end
            held.release()
            await until(pilot, lambda: isinstance(app.screen, ConversationSwitcher))
            await settle(pilot)
            assert jobs_text(app) == ""
            assert imported_titles(app) == ["Hello", "Trip to Oslo", "Trip to Oslo (branch 2)"]
            assert notes.messages[-1].startswith("Imported 3 conversations from ChatGPT")
    finally:
        held.release()


async def test_f9_cancels_the_import_and_nothing_of_it_is_kept(
    make_app: MakeApp, tmp_path: Path
) -> None:
    app, notes = make_app()
    held = HeldHistory(tmp_path, [short("c1", "Hello", "Hi!"), trip()])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            start(app, held)
            await until(pilot, lambda: "1 conversation read" in jobs_text(app))
            await pilot.press(F9)
            await until(pilot, lambda: jobs_text(app) == "")
            assert notes.messages[-1] == (
                "Cancelled: Importing conversations.json. Nothing of it was imported."
            )
            held.release()  # the import reads on, sees it was cancelled and rolls back
            importing = app.conversation_screen.conversation_dialogs.importing
            assert importing is not None
            await until(pilot, importing.ended.is_set)
            assert held.finished.is_set()
            assert imported_titles(app) == []
            assert not isinstance(app.screen, ConversationSwitcher)
            assert not any(m.startswith("Imported") for m in notes.messages)
    finally:
        held.release()
