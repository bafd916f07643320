"""Conversations: new, switch, rename, delete, export, switching mid-reply, edit and resend."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, RadioButton, Static, TextArea

from ctxchat.config.state import load_state
from ctxchat.core.budget import Layer
from ctxchat.core.history import MessageStatus
from ctxchat.store import NotFound
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.screens.delete_conversation import DeleteConversationScreen
from ctxchat.tui.screens.edit_message import EditMessageScreen
from ctxchat.tui.screens.export_format import ExportFormatScreen
from ctxchat.tui.screens.rename import RenameScreen
from ctxchat.tui.widgets.budget_bar import BudgetBar
from ctxchat.tui.widgets.queued_messages import QueuedRow
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from .app_harness import SIZE, MakeApp, seed, settle, shown_messages, status_line, typed, until
from .test_app_editing_keys import keys as burst_keys

DATABASE = [("user", "Which database?"), ("assistant", "PostgreSQL 16.")]
BACKUPS = [("user", "How often do backups run?"), ("assistant", "Every night at two.")]


async def open_switcher(
    app: CtxChatApp, pilot: Pilot[Any], *, to_list: bool = True, highlight: int | None = None
) -> ConversationSwitcher:
    """Ctrl+L; then tab to the list (where delete works) and highlight a conversation."""
    await pilot.press("ctrl+l")
    switcher = app.screen
    assert isinstance(switcher, ConversationSwitcher)
    if to_list:
        await pilot.press("tab")
    if highlight is not None:
        options = switcher.query_one(OptionList)
        options.highlighted = options.get_option_index(str(highlight))
    return switcher


def two_conversations(app: CtxChatApp) -> tuple[int, int]:
    """The open conversation (titled "Database") and another ("Backups"), both with turns."""
    store = app.workspace.store
    first = app.conversation_screen.session.stored_id
    store.conversations.rename_conversation(first, "Database")
    seed(store, DATABASE, conversation_id=first)
    second = seed(store, BACKUPS, title="Backups")[0].conversation_id
    return first, second


async def test_new_conversation_from_the_switcher(make_app: MakeApp) -> None:
    app, _ = make_app()
    first, _ = two_conversations(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_switcher(app, pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        newest = app.conversation_screen.session.stored_id
        assert newest not in (first, None)
        assert app.conversation_screen.session.store.messages.count_messages(newest) == 0
        assert shown_messages(app) == []
        assert app.conversation_screen.title == f"conversation {newest}"
        assert app.focused is app.conversation_screen.composer


async def test_switch_shows_the_other_conversation(make_app: MakeApp) -> None:
    app, _ = make_app()
    first, second = two_conversations(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_messages(app) == DATABASE
        await open_switcher(app, pilot, to_list=False)
        switcher = app.screen
        assert isinstance(switcher, ConversationSwitcher)
        assert sorted(switcher.visible_ids) == sorted([first, second])
        await pilot.press(*"back")
        assert switcher.visible_ids == [second]
        await pilot.press("enter")
        await settle(pilot)

        assert app.conversation_screen.session.stored_id == second
        assert shown_messages(app) == BACKUPS
        assert app.conversation_screen.title == "Backups"
        assert app.conversation_screen.last_plan is not None
        assert [m["content"] for m in app.conversation_screen.last_plan.request_messages()][1:] == [
            text for _, text in BACKUPS
        ]
        assert load_state(app.workspace.locations.state_file).state.last_conversation_id == second


async def test_rename_from_the_switcher(make_app: MakeApp) -> None:
    app, notes = make_app()
    first, _ = two_conversations(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_switcher(app, pilot, highlight=first)
        await pilot.press("ctrl+r")
        rename = app.screen
        assert isinstance(rename, RenameScreen)
        rename.query_one(Input).value = "Database   notes"
        await pilot.press("enter")
        await settle(pilot)

        assert (
            app.conversation_screen.session.store.conversations.get_conversation(first).title
            == "Database notes"
        )
        assert app.conversation_screen.title == "Database notes"
        assert "Renamed." in notes.messages


async def test_delete_asks_then_removes_everything(make_app: MakeApp) -> None:
    app, _ = make_app()
    first, second = two_conversations(app)
    store = app.workspace.store
    backup_messages = [m.id for m in store.messages.messages(second)]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_switcher(app, pilot, highlight=second)
        await pilot.press("delete")
        confirm = app.screen
        assert isinstance(confirm, DeleteConversationScreen)
        await pilot.press("enter")  # Cancel has the focus: a stray enter deletes nothing
        await settle(pilot)
        assert store.messages.count_messages(second) == 2
        assert isinstance(app.screen, ConversationSwitcher)  # back in the list

        await pilot.press("delete", "tab", "enter")  # to the Delete button: y is typing
        await settle(pilot)
        with pytest.raises(NotFound):
            store.conversations.get_conversation(second)
        for message_id in backup_messages:
            with pytest.raises(NotFound):
                store.messages.get_message(message_id)
        assert [c.id for c in store.conversations.list_conversations()] == [first]
        assert app.conversation_screen.session.stored_id == first


async def test_deleting_the_open_conversation_opens_another(make_app: MakeApp) -> None:
    app, _ = make_app()
    first, second = two_conversations(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_switcher(app, pilot, highlight=first)
        await pilot.press("delete", "tab", "enter")
        await settle(pilot)
        assert [c.id for c in app.workspace.store.conversations.list_conversations()] == [second]
        assert app.conversation_screen.session.stored_id == second
        assert shown_messages(app) == BACKUPS


@pytest.mark.parametrize(("key", "suffix"), [("ctrl+t", "md"), ("ctrl+j", "json")])
async def test_export_writes_into_the_exports_folder_and_says_the_full_path(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, suffix: str
) -> None:
    here = tmp_path / "source-repository"
    here.mkdir()
    monkeypatch.chdir(here)
    app, notes = make_app()
    first, _ = two_conversations(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_switcher(app, pilot, highlight=first)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ExportFormatScreen)
        await pilot.press(key)
        await settle(pilot)

    out = app.workspace.locations.data_dir / "exports"
    path = out / f"Database-{first}.{suffix}"
    assert list(here.iterdir()) == []  # never into the working directory
    assert [p.name for p in out.iterdir()] == [path.name]
    assert f"Exported to {path.resolve()}" in notes.messages
    text = path.read_text(encoding="utf-8")
    if suffix == "json":
        data = json.loads(text)
        assert [(m["role"], m["content"]) for m in data["messages"]] == DATABASE
    else:
        assert "Which database?" in text and "PostgreSQL 16." in text
        assert "Every night" not in text


async def test_export_into_a_folder_that_cannot_be_made_says_so_in_one_line(
    make_app: MakeApp, tmp_path: Path
) -> None:
    app, notes = make_app()
    two_conversations(app)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"export markdown")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ExportFormatScreen)
        app.screen.query_one("#export-folder", Input).value = str(blocker / "inside")
        await pilot.press("ctrl+t")
        await settle(pilot)
    (error,) = notes.of("error")
    assert error.startswith(f"Could not export to {blocker / 'inside'}")


async def ask_until_the_reply_begins(app: CtxChatApp, pilot: Pilot[Any]) -> None:
    """Send "Why not MySQL?" and wait for the reply's first two chunks ("MySQL was ne")."""
    await settle(pilot)
    await typed(pilot, "Why not MySQL?")
    await pilot.press("enter")
    await until(pilot, lambda: shown_messages(app)[-1] == ("assistant", "MySQL was ne"))


async def test_coming_back_mid_reply_shows_it_streaming_on_and_plans_with_it(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    first, second = two_conversations(app)
    release = threading.Event()
    server.fail_next(Fault.STALL, after=2, until=release)
    server.script("MySQL was never an option here.")
    async with app.run_test(size=SIZE) as pilot:
        await ask_until_the_reply_begins(app, pilot)
        await app.conversation_screen.open_conversation(second)
        await app.conversation_screen.open_conversation(
            first
        )  # back while the server still holds the rest
        assert app.conversation_screen.streaming
        # Caught up at once with all that arrived, not with the store's older copy.
        back = app.conversation_screen.conversation_view.items[-1]
        assert (back.is_streaming, back.view.content) == (True, "MySQL was ne")
        assert back.query_one(ReplyMarkdown).source == "MySQL was ne"
        assert status_line(app) == "gpt-4o is writing… (Esc stops)"  # not the other's facts
        release.set()
        await until(pilot, lambda: not app.conversation_screen.streaming)
        await settle(pilot)

        reply = app.conversation_screen.conversation_view.items[-1]
        assert reply.view.content == "MySQL was never an option here."
        assert reply.status is MessageStatus.COMPLETE
        assert str(reply.query_one(ReplyMarkdown).source) == "MySQL was never an option here."
        # The session opened mid-reply plans the next request with the finished reply.
        assert app.conversation_screen.last_plan is not None
        assert {
            "role": "assistant",
            "content": "MySQL was never an option here.",
        } in app.conversation_screen.last_plan.request_messages()


async def test_enter_while_a_reply_streams_elsewhere_queues_the_message_in_its_own_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    first, second = two_conversations(app)
    release = threading.Event()
    server.fail_next(Fault.STALL, after=2, until=release)
    server.script("MySQL was never an option here.", "Postgres, yes.")
    async with app.run_test(size=SIZE) as pilot:
        await ask_until_the_reply_begins(app, pilot)
        screen = app.conversation_screen
        await screen.open_conversation(second)
        await typed(pilot, "And Postgres?")
        await pilot.press("enter")
        await until(pilot, lambda: screen.composer.text == "")
        assert [str(row.render()) for row in app.query(QueuedRow).results(QueuedRow)] == [
            "queued · 1  And Postgres?"
        ]
        release.set()
        await until(pilot, lambda: len(server.requests) == 2 and not screen.streaming)
        await settle(pilot)
        store = screen.session.store
        assert [m.content for m in store.messages.messages(second)][-2:] == [
            "And Postgres?",
            "Postgres, yes.",
        ]
        assert [m.content for m in store.messages.messages(first)][-2:] == [
            "Why not MySQL?",
            "MySQL was never an option here.",
        ]
        assert shown_messages(app)[-2:] == [
            ("user", "And Postgres?"),
            ("assistant", "Postgres, yes."),
        ]


async def test_a_summary_made_after_a_reply_reaches_the_reopened_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app(extra="[context]\nmin_recent = 2\n[summary]\nmax_unsummarized = 2\n")
    first, second = two_conversations(app)
    release = threading.Event()
    server.fail_next(Fault.STALL, after=2, until=release)
    server.script("MySQL was never an option here.", "We chose PostgreSQL 16.")
    async with app.run_test(size=SIZE) as pilot:
        await ask_until_the_reply_begins(app, pilot)
        await app.conversation_screen.open_conversation(second)
        await app.conversation_screen.open_conversation(first)
        release.set()  # the reply ends after the switch back, and a summary follows it
        await until(pilot, lambda: app.workspace.store.summaries.active_summary(first) is not None)
        await settle(pilot)

        summary = app.conversation_screen.session.active_summary()
        assert summary is not None and summary.text == "We chose PostgreSQL 16."
        assert app.conversation_screen.last_plan is not None
        sent = json.dumps(app.conversation_screen.last_plan.request_messages())
        assert "We chose PostgreSQL 16." in sent
        assert app.conversation_screen.session.pending_fold() is None  # nothing folded twice


async def test_a_reply_streaming_during_a_switch_stays_in_its_own_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    first, second = two_conversations(app)
    release = threading.Event()
    server.fail_next(Fault.STALL, after=2, until=release)
    server.script("MySQL was never an option here.")
    async with app.run_test(size=SIZE) as pilot:
        await ask_until_the_reply_begins(app, pilot)
        await open_switcher(app, pilot, highlight=second)
        await pilot.press("enter")
        await until(pilot, lambda: app.conversation_screen.session.stored_id == second)
        release.set()  # the reply finishes while the other conversation is open
        store = app.workspace.store
        await until(
            pilot, lambda: store.messages.messages(first)[-1].status is MessageStatus.COMPLETE
        )
        await until(pilot, lambda: not app.conversation_screen.streaming)
        await settle(pilot)

        assert [(m.role, m.content, m.status) for m in store.messages.messages(first)][-2:] == [
            ("user", "Why not MySQL?", MessageStatus.COMPLETE),
            ("assistant", "MySQL was never an option here.", MessageStatus.COMPLETE),
        ]
        assert [(m.role, m.content) for m in store.messages.messages(second)] == BACKUPS
        assert shown_messages(app) == BACKUPS
        assert app.conversation_screen.last_plan is not None
        assert "MySQL" not in json.dumps(app.conversation_screen.last_plan.request_messages())

        await open_switcher(app, pilot, highlight=first)
        await pilot.press("enter")
        await settle(pilot)
        assert shown_messages(app)[-2:] == [
            ("user", "Why not MySQL?"),
            ("assistant", "MySQL was never an option here."),
        ]


async def edit_first_message(app: CtxChatApp, pilot: Pilot[Any], text: str) -> EditMessageScreen:
    app.conversation_screen.conversation_view.focus()
    await pilot.press("up", "up", "up", "up")
    assert (
        app.conversation_screen.conversation_view.selected_id
        == app.conversation_screen.conversation_view.items[0].message_id
    )
    await pilot.press("ctrl+e")
    editor = app.screen
    assert isinstance(editor, EditMessageScreen)
    area = editor.query_one(TextArea)
    assert area.text == "Which database?"
    area.load_text(text)
    return editor


async def test_edit_and_replace_drops_the_later_turns(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    first, _ = two_conversations(app)
    seed(
        app.workspace.store,
        [("user", "And its version?"), ("assistant", "16.")],
        conversation_id=first,
    )
    server.script("Use SQLite for this.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        editor = await edit_first_message(app, pilot, "Which embedded database?")
        editor.query_one("#later-replace", RadioButton).value = True
        await pilot.press("ctrl+s")
        await settle(pilot)

        store = app.workspace.store
        assert [(m.role, m.content) for m in store.messages.messages(first)] == [
            ("user", "Which embedded database?"),
            ("assistant", "Use SQLite for this."),
        ]
        assert server.requests[-1]["messages"][1:] == [
            {"role": "user", "content": "Which embedded database?"}
        ]
        assert shown_messages(app) == [
            ("user", "Which embedded database?"),
            ("assistant", "Use SQLite for this."),
        ]


async def test_edit_as_a_branch_keeps_the_original(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    first, _ = two_conversations(app)
    seed(
        app.workspace.store,
        [("user", "And its version?"), ("assistant", "16.")],
        conversation_id=first,
    )
    server.script("Use SQLite for this.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await edit_first_message(app, pilot, "Which embedded database?")
        await pilot.press("ctrl+s")  # "keep them as a branch" is the default
        await settle(pilot)

        store = app.workspace.store
        branch = app.conversation_screen.session.stored_id
        assert branch != first
        assert store.conversations.get_conversation(branch).title == "Database (branch)"
        assert [(m.role, m.content) for m in store.messages.messages(branch)] == [
            ("user", "Which embedded database?"),
            ("assistant", "Use SQLite for this."),
        ]
        assert [(m.role, m.content) for m in store.messages.messages(first)] == [
            *DATABASE,
            ("user", "And its version?"),
            ("assistant", "16."),
        ]
        assert shown_messages(app) == [
            ("user", "Which embedded database?"),
            ("assistant", "Use SQLite for this."),
        ]


async def test_a_branch_goes_out_with_the_conversations_preset(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    """Edit-and-resend as a branch: the branch's first request carries the preset's system
    prompt and max_tokens, not the configured ones."""
    app, _ = make_app(
        extra='[presets.brief]\nsystem_prompt = "Answer in one line."\nmax_output_tokens = 150\n'
    )
    first, _ = two_conversations(app)
    app.workspace.store.conversations.choose_preset(first, "brief")
    server.script("SQLite.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await edit_first_message(app, pilot, "Which embedded database?")
        await pilot.press("ctrl+s")
        await settle(pilot)
        branch = app.conversation_screen.session.stored_id
        assert branch != first
        assert app.workspace.store.conversations.get_conversation(branch).preset == "brief"
        sent = server.requests[-1]
        assert sent["max_tokens"] == 150
        assert sent["messages"][0] == {"role": "system", "content": "Answer in one line."}
        assert sent["messages"][-1] == {"role": "user", "content": "Which embedded database?"}


def side_text(app: CtxChatApp) -> str:
    """Everything the context side shows, as plain text."""
    side = app.query_one("#side")
    shown = [side.query_one(BudgetBar), *side.query(Static)]
    return "\n".join(str(widget.render()) for widget in shown)


async def test_nothing_of_one_conversation_shows_under_another(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("Stored with its counts.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await typed(pilot, "Count this")
        await pilot.press("enter")
        await settle(pilot)
        first = app.conversation_screen.session.stored_id
        reply = app.conversation_screen.session.store.messages.messages(first)[-1]
        assert reply.prompt_tokens is not None
        assert status_line(app).startswith(
            f"reply {reply.tokens:,} tokens (server counted {reply.completion_tokens:,}) · prompt "
        )
        assert "server counted" in side_text(app)
        await pilot.press("ctrl+o")  # a mode switch leaves its note
        await settle(pilot)
        assert "↔" in side_text(app)

        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.conversation_screen.session.stored_id != first
        assert status_line(app) == ""
        assert "server counted" not in side_text(app)
        assert "↔" not in side_text(app)

        # Back: its reply's facts come from the store.
        await app.conversation_screen.open_conversation(first)
        await settle(pilot)
        assert status_line(app).startswith(
            f"reply {reply.tokens:,} tokens (server counted {reply.completion_tokens:,}) · prompt "
        )
        assert "server counted" in side_text(app)


async def test_a_new_conversation_is_named_after_its_first_message_everywhere(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("Use tomllib.", "Yes.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert (
            app.conversation_screen.title
            == f"conversation {app.conversation_screen.session.stored_id}"
        )
        await typed(pilot, "How do I read a TOML file in Python 3.11?\nWith the stdlib only.")
        await pilot.press("enter")
        await settle(pilot)
        name = "How do I read a TOML file in Python 3.11? With…"
        conversation = app.conversation_screen.session.store.conversations.get_conversation(
            app.conversation_screen.session.stored_id
        )
        assert conversation.title == name
        assert app.conversation_screen.title == name
        await typed(pilot, "Is it fast?")  # later messages leave the name alone
        await pilot.press("enter")
        await settle(pilot)
        assert (
            app.conversation_screen.session.store.conversations.get_conversation(
                app.conversation_screen.session.stored_id
            ).title
            == name
        )
        await pilot.press("ctrl+l")
        await settle(pilot)
        switcher = app.screen
        assert isinstance(switcher, ConversationSwitcher)
        listed = str(switcher.query_one(OptionList).get_option_at_index(0).prompt)
        assert name in listed


async def test_a_branch_sends_the_summary_the_original_had(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    first, _ = two_conversations(app)
    store = app.workspace.store
    later = seed(
        store,
        [
            ("user", "And its version?"),
            ("assistant", "16."),
            ("user", "And the host?"),
            ("assistant", "db1."),
        ],
        conversation_id=first,
    )
    turns = store.messages.messages(first)
    store.summaries.add_summary(
        first,
        text="The database is PostgreSQL 16.",
        first_message_id=turns[0].id,
        last_message_id=turns[3].id,
        strategy="semantic",
        model="gpt-4o",
        tokens=9,
    )
    server.script("db2.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.conversation_view.focus()
        for _ in range(6):
            if app.conversation_screen.conversation_view.selected_id == later[-2].id:
                break
            await pilot.press("up")
        assert app.conversation_screen.conversation_view.selected_id == later[-2].id
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, EditMessageScreen))
        app.screen.query_one(TextArea).load_text("And the port?")
        await pilot.press("ctrl+s")
        await settle(pilot)

        branch = app.conversation_screen.session.stored_id
        assert branch != first
        (copied,) = store.summaries.summaries(branch)
        assert copied.text == "The database is PostgreSQL 16."
        sent = [m["content"] for m in server.requests[-1]["messages"]]
        assert any("The database is PostgreSQL 16." in text for text in sent)
        assert sent[-1] == "And the port?"
        assert app.conversation_screen.last_plan is not None
        assert [i.ref for i in app.conversation_screen.last_plan.layer(Layer.SUMMARY).items] == [
            "summary:v1"
        ]


@pytest.mark.parametrize("by", ["search", "arrow"])
async def test_keys_typed_in_one_burst_after_ctrl_l_open_what_they_chose(
    make_app: MakeApp, by: str
) -> None:
    """Keys after Ctrl+L as a terminal sends them, at once: a search then Enter opens what
    the search found; Tab, an arrow, Enter opens where the arrow moved to."""
    app, _ = make_app()
    first, second = two_conversations(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        switcher = app.screen
        assert isinstance(switcher, ConversationSwitcher)
        await settle(pilot)
        listed = switcher.visible_ids
        start = listed.index(first)  # the open one is highlighted
        if by == "search":
            burst_keys(pilot, *"back", "enter")
            expected = second
        else:
            arrow = "down" if start == 0 else "up"
            burst_keys(pilot, "tab", arrow, "enter")
            expected = listed[start + 1 if start == 0 else start - 1]
        await until(pilot, lambda: app.screen is app.conversation_screen)
        await settle(pilot)
        assert app.conversation_screen.session.stored_id == expected


@pytest.mark.parametrize("from_view", [False, True])
async def test_a_search_typed_in_the_same_burst_as_ctrl_l_searches_and_sends_nothing(
    make_app: MakeApp, server: ScriptedModelServer, from_view: bool
) -> None:
    """Ctrl+L, a search and Enter as a terminal sends them, at once, from the composer or
    the conversation: the switcher opens what the search found; nothing is sent."""
    app, _ = make_app()
    _, second = two_conversations(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if from_view:
            app.conversation_screen.conversation_view.focus()
            await pilot.pause()
        burst_keys(pilot, "ctrl+l", *"back", "enter")
        await until(pilot, lambda: app.conversation_screen.session.stored_id == second)
        await settle(pilot)
        assert app.screen is app.conversation_screen
        assert server.requests == []
        assert shown_messages(app) == BACKUPS
