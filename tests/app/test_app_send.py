"""Sending, stopping, retrying and regenerating: what the store holds and what was sent."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from textual.widgets import Collapsible, Static

from ctxchat.core.history import MessageStatus
from ctxchat.core.plan import ContextPlan, PlanStatus
from ctxchat.testing.server import Fault, Reply, ScriptedModelServer
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.parts.planner import BIG_DRAFT
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.message_item import MessageItem
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from ..waiting import PATIENCE
from .app_harness import (
    SIZE,
    MakeApp,
    input_panel_tokens,
    settle,
    shown_messages,
    stalled_reply,
    status_line,
    typed,
    until,
)

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
PRIMER = 3  # the tokens that prime the reply, counted in the input layer


async def test_a_sent_message_and_its_streamed_reply_are_stored_as_planned(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.script("WAL keeps a write-ahead log beside the database file.")
    async with app.run_test(size=SIZE) as pilot:
        planned = await typed(pilot, "What is WAL mode?")
        await pilot.press("enter")
        await settle(pilot)

        store = app.conversation_screen.session.store
        user, reply = store.messages.messages(app.conversation_screen.session.stored_id)
        assert (user.role, user.content, user.status) == (
            "user",
            "What is WAL mode?",
            MessageStatus.COMPLETE,
        )
        assert (reply.role, reply.content, reply.status) == (
            "assistant",
            "WAL keeps a write-ahead log beside the database file.",
            MessageStatus.COMPLETE,
        )
        sent = server.requests[-1]
        assert sent["messages"] == [SYSTEM, {"role": "user", "content": "What is WAL mode?"}]
        assert sent["messages"] == planned.request_messages()
        stored_plan = store.plans.load_plan(reply.id)
        assert stored_plan is not None
        assert stored_plan.request_messages() == sent["messages"]
        assert (sent["model"], sent["max_tokens"], sent["stream"]) == ("gpt-4o", 2_000, True)
        assert app.conversation_screen.composer.text == ""
        assert shown_messages(app) == [
            ("user", "What is WAL mode?"),
            ("assistant", "WAL keeps a write-ahead log beside the database file."),
        ]
        assert status_line(app) == (
            f"reply {reply.tokens:,} tokens (server counted {reply.completion_tokens:,}) · "
            f"prompt {reply.estimated_prompt_tokens:,} tokens "
            f"(server counted {reply.prompt_tokens:,})"
            " · cost: free (local server)"
        )
        assert notes.of("error") == []


async def test_without_the_servers_usage_the_status_line_gives_ctxchats_counts(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    server.ignore_stream_options = True  # no usage chunk, as llama-cpp-python streams
    app, _ = make_app()
    server.script("WAL keeps a write-ahead log beside the database file.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "What is WAL mode?")
        await pilot.press("enter")
        await settle(pilot)
        session = app.conversation_screen.session
        reply = session.store.messages.messages(session.stored_id)[-1]
        assert (reply.completion_tokens, reply.prompt_tokens) == (None, None)
        assert status_line(app) == (
            f"reply {reply.tokens:,} tokens · prompt {reply.estimated_prompt_tokens:,} tokens"
            " · cost: free (local server)"
        )


async def test_the_input_panel_counts_the_draft_as_it_is_typed(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert input_panel_tokens(app) == PRIMER
        await typed(pilot, "hi", keys=True)
        short = input_panel_tokens(app)
        assert short == app.conversation_screen.session.count("user", "hi") + PRIMER
        await typed(pilot, " there", keys=True)
        longer = input_panel_tokens(app)
        assert longer == app.conversation_screen.session.count("user", "hi there") + PRIMER
        assert longer > short


async def test_escape_stops_the_reply_and_keeps_the_part_received(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await stalled_reply(pilot, server)  # two chunks of six characters, then quiet
        assert app.conversation_screen.streaming
        await pilot.press("escape")
        await settle(pilot)

        user, reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        assert user.content == "Tell me everything."
        assert (reply.content, reply.status) == ("Partial answ", MessageStatus.INTERRUPTED)
        assert not app.conversation_screen.streaming
        assert (
            app.conversation_screen.conversation_view.items[-1].view.status
            is MessageStatus.INTERRUPTED
        )
        assert status_line(app) == ""  # the reply's marker line says it, once


async def test_retry_on_the_conversation_pane_replaces_an_interrupted_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.fail_next(Fault.STALL, after=2, seconds=30)
    server.script("Partial answer that never ends.", "The whole answer.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Tell me everything.")
        await pilot.press("enter")
        await until(pilot, lambda: shown_messages(app)[-1:] == [("assistant", "Partial answ")])
        await pilot.press("escape")
        await settle(pilot)
        interrupted = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]

        app.conversation_screen.conversation_view.focus()
        await pilot.press("ctrl+r")
        await settle(pilot)

        _, reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        assert reply.id != interrupted.id
        assert (reply.content, reply.status) == ("The whole answer.", MessageStatus.COMPLETE)
        assert server.requests[-1]["messages"] == [
            SYSTEM,
            {"role": "user", "content": "Tell me everything."},
        ]
        assert shown_messages(app) == [
            ("user", "Tell me everything."),
            ("assistant", "The whole answer."),
        ]


async def test_regenerate_replaces_the_last_reply(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("First answer.", "Second answer.")
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Pick a number.")
        await pilot.press("enter")
        await settle(pilot)
        first = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]

        app.conversation_screen.conversation_view.focus()
        await pilot.press("ctrl+g")  # nothing is lost (the old reply becomes a variant): no asking
        await settle(pilot)

        messages = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )
        assert [(m.role, m.content) for m in messages] == [
            ("user", "Pick a number."),
            ("assistant", "Second answer."),
        ]
        assert messages[-1].id != first.id
        assert len(server.requests) == 2
        assert server.requests[1]["messages"] == server.requests[0]["messages"]
        assert shown_messages(app) == [("user", "Pick a number."), ("assistant", "Second answer.")]


async def test_an_over_budget_draft_is_not_sent_and_stays_in_the_composer(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app(context_window=1_000, output_reserve=200)
    draft = "The quick brown fox jumps over the lazy dog. " * 100
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.insert(draft)
        await until(
            pilot,
            lambda: (
                app.conversation_screen.last_plan is not None
                and app.conversation_screen.last_plan.over_by > 0
            ),
        )
        plan = app.conversation_screen.last_plan
        assert plan is not None and plan.status is PlanStatus.OVER_BUDGET
        await pilot.press("enter")
        await settle(pilot)

        assert server.requests == []
        assert (
            app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )
            == []
        )
        assert app.conversation_screen.composer.text == draft
        assert notes.of("error") == [
            f"The message is {plan.over_by:,} tokens over the budget of 800 tokens; "
            "shorten it or raise the context window."
        ]


async def test_a_one_megabyte_paste_is_planned_in_a_thread_and_kept_when_over_budget(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    paste = "The quick brown fox jumps over the lazy dog.\n" * 23_300
    assert len(paste) > 1_000_000 > BIG_DRAFT
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.conversation_screen.session
        planned_on: list[tuple[int, bool]] = []
        plan = session.plan

        def watched(draft: str | None = None, *, before: int | None = None) -> ContextPlan:
            planned_on.append(
                (len(draft or ""), threading.current_thread() is threading.main_thread())
            )
            return plan(draft, before=before)

        session.plan = watched
        side = app.query_one("#side")
        assert not side.has_class("-hidden")
        app.conversation_screen.composer.insert(paste)
        # The app keeps answering keys while the plan is made.
        await pilot.press("ctrl+b")
        await settle(pilot)

        assert side.has_class("-hidden")
        assert (len(paste), False) in planned_on
        assert (len(paste), True) not in planned_on
        expected = session.count("user", paste) + PRIMER
        assert input_panel_tokens(app) == expected
        assert (
            app.conversation_screen.last_plan is not None
            and app.conversation_screen.last_plan.status is PlanStatus.OVER_BUDGET
        )

        await pilot.press("enter")
        await settle(pilot)
        assert server.requests == []
        assert app.conversation_screen.composer.text == paste
        assert notes.of("error") == [
            f"The message is {app.conversation_screen.last_plan.over_by:,} tokens over the budget of 14,000 "
            "tokens; shorten it or raise the context window."
        ]


async def test_a_reply_with_reasoning_shows_it_without_rebuilding_the_reply(
    make_app: MakeApp, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app()
    server.script(Reply("Use WAL mode.", "The user wants durability and speed."))
    async with app.run_test(size=SIZE) as pilot:
        bodies: list[ReplyMarkdown] = []
        original = MessageItem.start_stream

        def spy(item: MessageItem, live: LiveTurn) -> None:
            original(item, live)
            bodies.append(item.query_one(ReplyMarkdown))

        monkeypatch.setattr(MessageItem, "start_stream", spy)
        await typed(pilot, "Which journal mode?")
        await pilot.press("enter")
        await settle(pilot)
        monkeypatch.undo()
        reply = app.query(MessageItem).last()
        (shown,) = reply.query(Collapsible)
        assert shown.title.startswith("Reasoning")
        assert any("durability and speed" in str(part.render()) for part in shown.query(Static))
        # The streamed body was settled in place, not thrown away for the reasoning.
        assert reply.query_one(ReplyMarkdown) is bodies[0]
        assert shown_messages(app)[-1] == ("assistant", "Use WAL mode.")


def reasoning_shown(item: MessageItem) -> tuple[str, bool, str] | None:
    """The reasoning block of `item` as (title, collapsed, text), or None without one."""
    blocks = item.query(Collapsible)
    if not blocks:
        return None
    block = blocks.first()
    text = str(block.query_one(".message--reasoning", Static).render())
    return block.title, block.collapsed, text


async def test_reasoning_shows_live_and_stays_when_the_reply_is_stopped(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    thought = "The user wants durability first, then speed."
    # Every reasoning chunk arrives, then the server goes quiet before the answer.
    server.fail_next(Fault.STALL, after=0, seconds=30)
    server.script(Reply("Use WAL mode.", thought))
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which journal mode?")
        await pilot.press("enter")
        item: list[MessageItem] = []

        def thinking() -> bool:
            item[:] = [app.query(MessageItem).last()]
            return reasoning_shown(item[0]) == ("Reasoning…", False, thought)

        await until(pilot, thinking)
        assert app.conversation_screen.streaming
        assert shown_messages(app)[-1] == ("assistant", "")
        await pilot.press("escape")
        await settle(pilot)

        reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert (reply.reasoning, reply.status) == (thought, MessageStatus.INTERRUPTED)
        tokens = app.conversation_screen.session.counter.count_text(thought)
        assert reasoning_shown(item[0]) == (f"Reasoning · {tokens:,} tokens", False, thought)


async def test_live_reasoning_folds_away_once_the_answer_begins(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    thought = "Durability first."
    server.fail_next(Fault.STALL, after=2, seconds=30)  # two answer chunks, then quiet
    server.script(Reply("Use WAL mode, always.", thought))
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which journal mode?")
        await pilot.press("enter")
        await until(pilot, lambda: shown_messages(app)[-1] == ("assistant", "Use WAL mode"))
        item = app.query(MessageItem).last()
        # Drawn at the next write, at most a tenth of a second later.
        await until(pilot, lambda: reasoning_shown(item) == ("Reasoning…", True, thought))
        assert item.query_one(ReplyMarkdown).source == "Use WAL mode"
        await pilot.press("escape")


async def test_a_stop_while_the_turn_is_drawing_still_marks_the_reply_interrupted(
    make_app: MakeApp, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app()
    server.script(Reply("Use WAL mode.", "Durability first."))
    original = MessageItem.arrived
    drawing = asyncio.Event()

    async def slow(item: MessageItem) -> None:
        drawing.set()
        # Drawing that only the stop ends: so the stop lands here, not in the network.
        await asyncio.wait_for(asyncio.Event().wait(), PATIENCE)
        await original(item)

    monkeypatch.setattr(MessageItem, "arrived", slow)
    async with app.run_test(size=SIZE) as pilot:
        await typed(pilot, "Which journal mode?")
        await pilot.press("enter")
        await until(pilot, drawing.is_set)
        await pilot.press("escape")
        await settle(pilot)

        reply = app.conversation_screen.session.store.messages.messages(
            app.conversation_screen.session.stored_id
        )[-1]
        assert reply.status is MessageStatus.INTERRUPTED
        assert (
            app.conversation_screen.conversation_view.items[-1].view.status
            is MessageStatus.INTERRUPTED
        )
        assert not app.conversation_screen.streaming


async def test_the_start_and_the_end_of_a_turn_are_each_drawn_in_one_frame(
    make_app: MakeApp, server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Starting a turn clears the composer and adds the message and the reply; ending it
    # settles the reply, its header, the status line, the context panels and the footer.
    # Each frame lays out the screen (at the end, the whole reply): none is drawn half-way.
    app, _ = make_app()
    server.script("- one\n- two\n\nA paragraph after the list.")
    half_drawn: list[str] = []
    add_message, finish = ConversationView.add_message, MessageItem.finish

    async def slow_to_add(view: ConversationView, message: MessageView) -> MessageItem:
        item = await add_message(view, message)
        await asyncio.sleep(0.1)  # a slow start: the screen's timer has time to draw
        return item

    async def slow_to_finish(item: MessageItem, *args: Any, **kwargs: Any) -> None:
        await finish(item, *args, **kwargs)
        await asyncio.sleep(0.1)  # a slow ending, likewise

    def half_way() -> str | None:
        """What a frame drawn now would show half-done, if anything."""
        items = app.conversation_screen.conversation_view.items
        asked = [item for item in items if item.view.content == "List two things."]
        if not asked:
            return None
        turn = items[items.index(asked[0]) :]  # the message and what follows it
        if len(turn) < 2:
            return "the message without its reply"
        writing = status_line(app).endswith("is writing… (Esc stops)")
        if turn[-1].is_streaming != writing:
            return "the reply and the status line disagree"
        if turn[-1].is_streaming != app.conversation_screen.streaming:
            return "the reply and the Stop key disagree"
        return None

    monkeypatch.setattr(ConversationView, "add_message", slow_to_add)
    monkeypatch.setattr(MessageItem, "finish", slow_to_finish)
    async with app.run_test(size=SIZE) as pilot:

        def laid_out(screen: object) -> None:
            if (half := half_way()) is not None:
                half_drawn.append(half)

        app.screen.screen_layout_refresh_signal.subscribe(app.screen, laid_out)
        await typed(pilot, "List two things.")
        await pilot.press("enter")
        await settle(pilot)
        assert half_drawn == []
        assert shown_messages(app)[-2:] == [
            ("user", "List two things."),
            ("assistant", "- one\n- two\n\nA paragraph after the list."),
        ]
        assert app.conversation_screen.composer.text == ""
        assert not app.conversation_screen.streaming
