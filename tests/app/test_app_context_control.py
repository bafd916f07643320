"""Leaving a turn out, the task, attached files and what replies cost, from the app's keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.workspace import Workspace
from ctxchat.core.budget import Layer
from ctxchat.core.prices import ModelPrice, money
from ctxchat.testing.harness import open_test_workspace, write_config
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp, build_app
from ctxchat.tui.screens.files_dialog import FilesDialog
from ctxchat.tui.screens.task_dialog import TaskDialog
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.message_item import EXCLUDED_WORDS, MessageItem

from .app_harness import SIZE, MakeApp, exchange, seed, settle, status_line, typed, until


def header(item: MessageItem) -> str:
    return str(item.query_one(".message--header", Static).render())


def said(app: CtxChatApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def sent_after(pilot: Pilot[Any], server: ScriptedModelServer, text: str) -> str:
    """Send `text` from the composer; every message's content of the request it made."""
    await typed(pilot, text)
    await pilot.press("enter")
    await settle(pilot)
    return "\n".join(str(message["content"]) for message in server.requests[-1]["messages"])


async def opened(pilot: Pilot[Any], key: str, dialog: type[Screen[None]]) -> None:
    """Press `key` and wait until `dialog` is the screen."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, dialog))


async def test_ctrl_x_leaves_the_selected_turn_out_of_the_request_and_back_in(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    screen = app.conversation_screen
    first_question, first_answer, *_ = seed(
        app.workspace.store, exchange(2), conversation_id=screen.session.stored_id
    )
    server.script("Noted.", "Again.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = screen.last_plan
        assert before is not None
        view = screen.conversation_view
        view.focus()
        view.select(first_answer.id)
        await pilot.press("ctrl+x")
        await until(pilot, lambda: screen.last_plan is not before)
        await settle(pilot)
        after = screen.last_plan
        assert after is not None
        told = f"Excluded message #{first_answer.id}: the next request: "
        assert any(note.startswith(told) for note in notes.messages), notes.messages
        assert f"{before.tokens:,} → {after.tokens:,} tokens" in notes.messages[-1]
        item = view.item(first_answer.id)
        assert item is not None
        assert EXCLUDED_WORDS in header(item) and item.has_class("-excluded")
        assert [left.detail for left in after.left_out if str(first_answer.id) in left.ref] == [
            "excluded by you"
        ]

        sent = await sent_after(pilot, server, "Go on.")
        assert first_question.content in sent
        assert first_answer.content not in sent

        # In again, through the palette's action, on the same selected message.
        view.focus()
        view.select(first_answer.id)
        screen.conversation_view.action_exclude()
        await settle(pilot)
        assert f"Included message #{first_answer.id} again" in notes.messages[-1]
        assert EXCLUDED_WORDS not in header(item) and not item.has_class("-excluded")
        assert first_answer.content in await sent_after(pilot, server, "And again.")


async def test_alt_x_leaves_a_question_and_its_answer_out_together(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    screen = app.conversation_screen
    first_question, first_answer, second_question, second_answer = seed(
        app.workspace.store, exchange(2), conversation_id=screen.session.stored_id
    )
    server.script("Noted.", "Again.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = screen.conversation_view
        view.focus()
        view.select(first_answer.id)  # the answer selected: its question goes with it
        await pilot.press("alt+x")
        await until(pilot, lambda: bool(notes.messages) and "Excluded" in notes.messages[-1])
        assert notes.messages[-1].startswith(
            f"Excluded messages #{first_question.id} and #{first_answer.id}: the next request: "
        )
        for message in (first_question, first_answer):
            item = view.item(message.id)
            assert item is not None and item.has_class("-excluded")
        sent = await sent_after(pilot, server, "Go on.")
        assert first_question.content not in sent and first_answer.content not in sent
        assert second_question.content in sent and second_answer.content in sent

        # Back in together, from the palette, the question selected this time.
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        view.focus()
        view.select(first_question.id)
        app.call_later(commands["context: leave question and answer out or include them"].callback)
        await until(pilot, lambda: "Included messages" in notes.messages[-1])
        sent = await sent_after(pilot, server, "And again.")
        assert first_question.content in sent and first_answer.content in sent


async def test_the_task_dialog_stores_each_edit_and_the_next_request_sends_it(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    screen = app.conversation_screen
    seed(app.workspace.store, exchange(1), conversation_id=screen.session.stored_id)
    server.script("On it.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await opened(pilot, "f10", TaskDialog)
        goal = app.screen.query_one("#task-goal", Input)
        goal.focus()
        goal.value = "Ship the parser"
        await pilot.press("enter")
        step = app.screen.query_one("#task-new-step", Input)
        for text in ("Write the grammar", "Test it", "Drop this one"):
            step.focus()
            step.value = text
            await pilot.press("enter")
        book = screen.session.task_book
        assert [item.text for item in book.state.items] == [
            "Write the grammar",
            "Test it",
            "Drop this one",
        ]
        steps = app.screen.query_one("#task-steps")
        steps.focus()
        await pilot.press("home", "enter", "end", "delete")
        await pilot.pause()
        # An empty step is refused with one line, and nothing changes.
        step.focus()
        step.value = "   "
        await pilot.press("enter")
        assert book.state.goal == "Ship the parser"
        assert [(item.text, item.done) for item in book.state.items] == [
            ("Write the grammar", True),
            ("Test it", False),
        ]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await settle(pilot)
        plan = screen.last_plan
        assert plan is not None and plan.layer(Layer.TASK).tokens > 0

        sent = await sent_after(pilot, server, "Next?")
        assert "Goal: Ship the parser" in sent
        assert "1. [done] Write the grammar" in sent and "2. [pending] Test it" in sent
        assert "Drop this one" not in sent


async def test_a_file_attached_in_the_dialog_goes_into_the_request(
    make_app: MakeApp, server: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a path typed is read from where ctxchat runs
    app, _ = make_app()
    screen = app.conversation_screen
    seed(app.workspace.store, exchange(1), conversation_id=screen.session.stored_id)
    notes_file = tmp_path / "notes.md"
    notes_file.write_text("The parser reads TOML 1.0 and rejects tabs in keys.\n")
    server.script("Read it.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await opened(pilot, "f12", FilesDialog)
        path = app.screen.query_one("#files-path", Input)
        path.value = "missing.md"
        await pilot.press("enter")
        assert said(app, "#files-said") == "Cannot attach missing.md: there is no such file."
        assert path.value.endswith("missing.md")  # kept, to be fixed
        path.value = "notes.md"
        await pilot.press("enter")
        await pilot.pause()
        assert said(app, "#files-said").startswith("Attached notes.md: ")
        listed = app.screen.query_one("#files-list")
        assert "notes.md" in str(listed.render_line(0))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await settle(pilot)
        assert "rejects tabs in keys" in await sent_after(pilot, server, "What does it read?")

        # Changed on disk: the files panel says so; detached, the next request has none.
        notes_file.write_text("The parser reads TOML 1.1 now, and much more besides.\n")
        screen.planner.plan_again()  # nothing tells the app of a change on disk
        await settle(pilot)
        panel = app.query_one("#layer-files")
        assert "changed on disk" in " ".join(str(static.render()) for static in panel.query(Static))
        await opened(pilot, "f12", FilesDialog)
        app.screen.query_one("#files-list").focus()
        await pilot.press("delete")
        await pilot.pause()
        assert said(app, "#files-said").startswith("Detached notes.md")
        await pilot.press("escape")
        await settle(pilot)
        assert screen.session.attachments() == []


async def test_each_context_dialog_has_a_key_for_its_main_thing_in_its_own_footer(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ctrl+s closes the task dialog keeping the goal typed, and attaches the path typed in
    the files dialog from its list too; each footer shows its own keys, not the screen's."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plan.md").write_text("Step one: parse the header.\n")
    app, _ = make_app()
    screen = app.conversation_screen
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await opened(pilot, "f10", TaskDialog)
        await pilot.pause()
        words = {str(key.description) for key in app.screen.query_one(KeyFooter).query(FooterKey)}
        assert {"Done", "Close"} <= words and not {"Inspect", "Memory"} & words
        goal = app.screen.query_one("#task-goal", Input)
        goal.focus()
        goal.value = "Ship the parser"  # typed, never entered
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen)
        assert screen.session.task_book.state.goal == "Ship the parser"

        await opened(pilot, "f12", FilesDialog)
        app.screen.query_one("#files-path", Input).value = "plan.md"
        app.screen.query_one("#files-list").focus()
        await pilot.pause()
        words = {str(key.description) for key in app.screen.query_one(KeyFooter).query(FooterKey)}
        assert {"Attach", "Detach", "Close"} <= words
        await pilot.press("ctrl+s")
        await until(pilot, lambda: said(app, "#files-said").startswith("Attached plan.md: "))
        assert [attachment.name for attachment in screen.session.attachments()] == ["plan.md"]


def priced_app(
    tmp_path: Path, server: ScriptedModelServer, workspaces: list[Workspace]
) -> CtxChatApp:
    """The app on a server configured as priced, gpt-4o at a price that makes cents of a
    short reply."""
    config = write_config(
        tmp_path / "home",
        server.base_url,
        extra='[prices."gpt-4o"]\ninput = 1000.0\ncached_input = 500.0\noutput = 4000.0\n',
    )
    config.write_text(config.read_text() + 'pricing = "priced"\n')
    workspace = open_test_workspace(tmp_path / "home", config)
    workspaces.append(workspace)
    return build_app(workspace, SessionOptions())


async def test_a_priced_reply_shows_its_cost_and_the_status_line_the_conversation_s(
    tmp_path: Path, server: ScriptedModelServer, workspaces: list[Workspace]
) -> None:
    app = priced_app(tmp_path, server, workspaces)
    screen = app.conversation_screen
    server.script("Four.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed(pilot, "Two and two?")
        await pilot.press("enter")
        await settle(pilot)
        store = screen.session.store
        reply = store.messages.messages(screen.session.stored_id)[-1]
        assert reply.prompt_tokens is not None and reply.completion_tokens is not None
        price = ModelPrice(1000.0, 500.0, 4000.0)
        cost = money(
            price.cost(reply.prompt_tokens, reply.cached_tokens or 0, reply.completion_tokens)
        )
        item = screen.conversation_view.item(reply.id)
        assert item is not None
        assert f"{reply.tokens:,} tokens · {cost}" in header(item)
        assert status_line(app).endswith(
            f" · cost: reply {cost} · conversation {cost} · today {cost}"
        )
