"""A reply's turn while it streams: its answer and its reasoning."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial

import pytest
from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.pilot import Pilot
from textual.widgets import Collapsible, Markdown, Static

from ctxchat.core.history import MessageStatus
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets import message_item
from ctxchat.tui.widgets.message_item import DRAWING_SHARE, WRITES_PER_SECOND, MessageItem
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from ..waiting import until

SLACK = 0.1
"""Seconds a loaded machine may take between planning a write and making it: the pacing
tests allow it, yet still tell each wait from the shorter one it would be without it."""


class OneTurn(App[None]):
    """A reply's turn, streaming from the start."""

    def __init__(self) -> None:
        super().__init__()
        self.live = LiveTurn(1, reply_id=1)

    def compose(self) -> ComposeResult:
        yield MessageItem(MessageView(1, "assistant", "", MessageStatus.STREAMING, model="m"))

    def on_mount(self) -> None:
        self.query_one(MessageItem).start_stream(self.live)


async def arrive(item: MessageItem, text: str = "", reasoning: str = "") -> None:
    """Some of the reply (or its reasoning) arrives, as the app's turn hands it on."""
    app = item.app
    assert isinstance(app, OneTurn | StoredMidReply)
    app.live.received(text, reasoning)
    await item.arrived()


def header(item: MessageItem) -> str:
    return str(item.query_one(".message--header", Static).render())


def reasoning_text(item: MessageItem) -> str:
    return str(item.query_one(".message--reasoning", Static).render())


def shown_reasoning(item: MessageItem) -> str:
    """The reasoning on screen ("" before its block is mounted)."""
    return reasoning_text(item) if item.query(".message--reasoning") else ""


def shown_answer(item: MessageItem) -> str:
    return item.query_one(ReplyMarkdown).source


async def test_reasoning_opened_again_by_the_user_stays_open_while_the_answer_streams() -> None:
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        await arrive(item, reasoning="First the log, ")
        await arrive(item, reasoning="then the checkpoint.")
        await until(pilot, lambda: shown_reasoning(item) == "First the log, then the checkpoint.")
        block = item.query_one(Collapsible)
        assert (block.title, block.collapsed) == ("Reasoning…", False)
        assert "thinking…" in header(item)
        assert reasoning_text(item) == "First the log, then the checkpoint."

        await arrive(item, "Use ")
        await until(pilot, lambda: shown_answer(item) == "Use ")
        assert block.collapsed  # the answer began
        assert "writing…" in header(item)
        block.collapsed = False  # the user opens it again
        await arrive(item, "WAL mode.")
        await until(pilot, lambda: shown_answer(item) == "Use WAL mode.")
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
        await arrive(item, "Use WAL mode.")
        await until(pilot, lambda: shown_answer(item) == "Use WAL mode.")
        await arrive(item, reasoning="A late thought.")
        await until(pilot, lambda: shown_reasoning(item) == "A late thought.")
        assert item.query_one(Collapsible).collapsed
        assert reasoning_text(item) == "A late thought."


async def test_an_answer_that_arrives_at_once_after_reasoning_still_folds_it() -> None:
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        await arrive(item, reasoning="Long thought, ")
        await until(pilot, lambda: shown_reasoning(item) == "Long thought, ")
        await arrive(item, reasoning="then more.")
        await arrive(item, "Yes.")  # within the write interval: never drawn before the end
        await item.finish("Yes.")
        await pilot.pause()
        block = item.query_one(Collapsible)
        assert (block.title, block.collapsed) == ("Reasoning", True)
        assert reasoning_text(item) == "Long thought, then more."


async def test_reasoning_written_while_its_block_is_still_mounting_is_not_lost() -> None:
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        app.live.received("", "a")
        first = asyncio.ensure_future(item._write_pending())  # mounts the block
        app.live.received("", "b")
        await item.finish("")  # runs before the mount above has finished
        await first
        await pilot.pause()
        assert reasoning_text(item) == "ab"


class StoredMidReply(App[None]):
    """A turn drawn from the store while its reply was still arriving."""

    def __init__(self) -> None:
        super().__init__()
        self.live = LiveTurn(1, reply_id=1)

    def compose(self) -> ComposeResult:
        view = MessageView(1, "assistant", "Use", MessageStatus.STREAMING, reasoning="Thin")
        yield MessageItem(view)


async def test_a_turn_drawn_mid_reply_resumes_with_all_that_arrived_and_streams_on() -> None:
    app = StoredMidReply()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        app.live.received("Use WAL", "Thinking done.")  # what arrived meanwhile
        await item.resume(app.live)
        await arrive(item, " mode.")
        await item.finish("Use WAL mode.")
        await pilot.pause()
        body = item.query_one(ReplyMarkdown)
        assert body.source == "Use WAL mode."
        assert len(item.query(Collapsible)) == 1
        assert reasoning_text(item) == "Thinking done."
        assert item.query_one(Collapsible).collapsed
        assert item.status is MessageStatus.COMPLETE


def record_appends(item: MessageItem, *, delay: float = 0.0, announce: bool = True) -> list[float]:
    """Make the body's appends take `delay` seconds (a slow draw), and return a list that
    gets the time each append began. With `announce=False` the body never says it drew."""
    body = item.query_one(ReplyMarkdown)
    started: list[float] = []
    append = body.append if announce else partial(Markdown.append, body)

    def slow_append(markdown: str) -> AwaitComplete:
        started.append(time.monotonic())

        async def slowly() -> None:
            await asyncio.sleep(delay)
            await append(markdown)

        return AwaitComplete(slowly())

    body.append = slow_append
    return started


async def wait_for(condition: Callable[[], bool], pilot: Pilot[None]) -> None:
    await until(pilot, condition)


async def gap_between_two_writes(
    item: MessageItem, appends: list[float], pilot: Pilot[None], pause: float = 0.0
) -> float:
    """Stream "One " and, `pause` seconds later, "two."; once both are in the body, the
    seconds between the appends that wrote them (`appends`, from `record_appends`)."""
    await arrive(item, "One ")
    if pause:
        await pilot.pause(pause)
    await arrive(item, "two.")
    await wait_for(lambda: len(appends) == 2, pilot)
    await wait_for(lambda: item.query_one(ReplyMarkdown).source == "One two.", pilot)
    return appends[1] - appends[0]


@pytest.mark.perf
async def test_writes_come_at_most_ten_times_a_second() -> None:
    """Protects streaming's speed: deltas are written to the Markdown in batches."""
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        appends = record_appends(item)
        await arrive(item, "One ")
        await arrive(item, "two ")
        await arrive(item, "three.")
        await wait_for(lambda: len(appends) == 2, pilot)
        assert appends[1] - appends[0] >= 1 / WRITES_PER_SECOND - SLACK / 2
        await wait_for(lambda: item.query_one(ReplyMarkdown).source == "One two three.", pilot)


@pytest.mark.perf
async def test_a_write_waits_for_the_last_to_be_drawn_and_as_long_again() -> None:
    """Protects the UI from a slow draw (pins the write pacing). A slow draw (0.3 s) holds the next write back until it is on screen, and then for as
    long again (DRAWING_SHARE): drawing never takes more than half the time."""
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        appends = record_appends(item, delay=0.3)
        gap = await gap_between_two_writes(item, appends, pilot, pause=0.15)
        assert gap >= 0.3 / DRAWING_SHARE - SLACK


@pytest.mark.perf
async def test_a_draw_that_is_never_announced_holds_writes_back_only_briefly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pins the write pacing: an unannounced draw holds the next write DRAWING_WAIT_LIMIT."""
    monkeypatch.setattr(message_item, "DRAWING_WAIT_LIMIT", 0.4)
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        appends = record_appends(item, announce=False)
        gap = await gap_between_two_writes(item, appends, pilot)  # no third delta asks again
        assert gap >= 0.4 - SLACK


async def test_a_new_stream_does_not_wait_for_a_draw_the_last_one_left_unfinished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(message_item, "DRAWING_WAIT_LIMIT", 3600.0)  # waiting it out would hang
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        record_appends(item, announce=False)
        await arrive(item, "Half")
        await item.finish("Half", MessageStatus.INTERRUPTED)
        await pilot.pause()
        del item.query_one(ReplyMarkdown).append  # drawn and announced again
        app.live = LiveTurn(1, reply_id=1)  # retried into the same turn
        item.start_stream(app.live)
        await arrive(item, "Whole reply.")
        await wait_for(lambda: item.query_one(ReplyMarkdown).source == "HalfWhole reply.", pilot)


@pytest.mark.perf
async def test_an_earlier_writes_announcement_does_not_count_for_the_last_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pins the write pacing. A draw announced for less than was written (an earlier write, or the last stream's)
    leaves the wait for the last write as it was."""
    monkeypatch.setattr(message_item, "DRAWING_WAIT_LIMIT", 0.4)
    app = OneTurn()
    async with app.run_test() as pilot:
        item = app.query_one(MessageItem)
        body = item.query_one(ReplyMarkdown)
        appends = record_appends(item, announce=False)
        await arrive(item, "One ")
        await wait_for(lambda: len(appends) == 1, pilot)
        body.post_message(ReplyMarkdown.Appended(len("One") - 1))  # covers less than written
        await pilot.pause()
        await arrive(item, "two.")
        await wait_for(lambda: len(appends) == 2, pilot)
        assert appends[1] - appends[0] >= 0.4 - SLACK
