"""A reply's turn while it streams: its answer and its reasoning."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import Collapsible, Static

from ctxchat.core.history import MessageStatus
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.message_item import MessageItem
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown


class OneTurn(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageItem(MessageView(1, "assistant", "", MessageStatus.STREAMING, model="m"))


def header(item: MessageItem) -> str:
    return str(item.query_one(".message--header", Static).render())


def reasoning_text(item: MessageItem) -> str:
    return str(item.query_one(".message--reasoning", Static).render())


async def test_reasoning_opened_again_by_the_user_stays_open_while_the_answer_streams() -> None:
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        await item.append_reasoning("First the log, ")
        await item.append_reasoning("then the checkpoint.")
        await pilot.pause(0.15)  # past the write interval
        block = item.query_one(Collapsible)
        assert (block.title, block.collapsed) == ("Reasoning…", False)
        assert "thinking…" in header(item)
        assert reasoning_text(item) == "First the log, then the checkpoint."

        await item.append("Use ")
        await pilot.pause(0.15)
        assert block.collapsed  # the answer began
        assert "writing…" in header(item)
        block.collapsed = False  # the user opens it again
        await item.append("WAL mode.")
        await pilot.pause(0.15)
        assert not block.collapsed
        assert item.view.content == "Use WAL mode."

        await item.finish("Use WAL mode.")
        await pilot.pause()
        assert (block.title, block.collapsed) == ("Reasoning", False)
        assert item.query_one(Collapsible) is block  # kept, not rebuilt
        assert reasoning_text(item) == "First the log, then the checkpoint."


async def test_reasoning_that_arrives_after_the_answer_began_starts_folded() -> None:
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        await item.append("Use WAL mode.")
        await pilot.pause(0.15)
        await item.append_reasoning("A late thought.")
        await pilot.pause(0.15)
        assert item.query_one(Collapsible).collapsed
        assert reasoning_text(item) == "A late thought."


async def test_an_answer_that_arrives_at_once_after_reasoning_still_folds_it() -> None:
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        await item.append_reasoning("Long thought, ")
        await pilot.pause(0.15)
        await item.append_reasoning("then more.")
        await item.append("Yes.")  # within the write interval: never drawn before the end
        await item.finish("Yes.")
        await pilot.pause()
        block = item.query_one(Collapsible)
        assert (block.title, block.collapsed) == ("Reasoning", True)
        assert reasoning_text(item) == "Long thought, then more."


async def test_reasoning_written_while_its_block_is_still_mounting_is_not_lost() -> None:
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        item._received_reasoning.append("a")
        item._reasoning_pending = True
        first = asyncio.ensure_future(item._write_pending())  # mounts the block
        item._received_reasoning.append("b")
        item._reasoning_pending = True
        await item.finish("")  # runs before the mount above has finished
        await first
        await pilot.pause()
        assert reasoning_text(item) == "ab"


class StoredMidReply(App[None]):
    """A turn drawn from the store while its reply was still arriving."""

    def compose(self) -> ComposeResult:
        view = MessageView(1, "assistant", "Use", MessageStatus.STREAMING, reasoning="Thin")
        yield MessageItem(view)


async def test_a_turn_drawn_mid_reply_resumes_with_all_that_arrived_and_streams_on() -> None:
    app = StoredMidReply()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        await item.resume("Use WAL", "Thinking done.")
        await item.append(" mode.")
        await item.finish("Use WAL mode.")
        await pilot.pause()
        body = item.query_one(ReplyMarkdown)
        assert body.source == "Use WAL mode."
        assert len(item.query(Collapsible)) == 1
        assert reasoning_text(item) == "Thinking done."
        assert item.query_one(Collapsible).collapsed
        assert item.status is MessageStatus.COMPLETE
