"""Context control in pictures: a turn left out, a reply's cost, the task and files dialogs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from ctxchat.store import ReplyEnding, ReplyWriter, Store
from ctxchat.tui.app import CtxChatApp

from .snapshot_apps import COUNTER, BuildApp, RunBefore, say, steady, then, tokens

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
WIDE = (200, 50)


def priced_reply(store: Store, conversation_id: int, text: str) -> None:
    """A reply from a server that charges, with the usage it reported."""
    writer = ReplyWriter.start(
        store.replies, conversation_id, model="gpt-4o", estimated_prompt_tokens=1_180
    )
    writer.append(text, "")
    writer.close(
        ReplyEnding(
            content=writer.content,
            tokens=tokens("assistant", text),
            exact=True,
            encoding=COUNTER.name,
            finish_reason="stop",
            prompt_tokens=1_200,
            completion_tokens=300,
            billing="priced",
        )
    )


def one_turn_left_out(app: CtxChatApp) -> CtxChatApp:
    """Three exchanges about a release; the second answer is excluded; the last reply was
    priced (gpt-4o at the shipped prices)."""
    store = app.workspace.store
    conversation = app.conversation_screen.session.stored_id
    say(store, conversation, "user", "When is the release?")
    say(store, conversation, "assistant", "On Friday, after the freeze.")
    say(store, conversation, "user", "Paste the whole build log here.")
    noisy = say(store, conversation, "assistant", "Build log: 4,000 lines of compiler output.")
    say(store, conversation, "user", "Who signs it off?")
    priced_reply(store, conversation, "Dana signs it off.")
    store.exclusions.set_excluded([noisy.id], True)
    return app


class TestATurnLeftOutAndACost:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The excluded answer's header says `Assistant  left out: excluded by you` in bold
        italic, its text dimmed and its gutter faint; the last reply's header ends with
        `· $0.0060` (1,200 prompt and 300 completion tokens at gpt-4o's price); the status
        line ends with `cost: reply $0.0060 · conversation $0.0060 · today $0.0060`."""
        assert snap_compare(one_turn_left_out(build()), run_before=then(), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """As narrow, with the context side: the working-memory panel lists the excluded
        message as left out, `excluded by you`."""
        assert snap_compare(one_turn_left_out(build()), run_before=then(), terminal_size=WIDE)


def with_task(app: CtxChatApp) -> CtxChatApp:
    book = app.conversation_screen.session.task_book
    book.set_goal("Ship the TOML parser")
    for step in ("Write the grammar", "Test the edge cases", "Publish the package"):
        book.add_step(step)
    book.mark_done(1)
    return app


class TestTaskDialog:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """F9: the `Task` dialog: the goal `Ship the TOML parser` in its box (focused), the
        steps `1. [done] Write the grammar`, `2. [pending] Test the edge cases`, `3. [pending]
        Publish the package`, an empty `A new step` box and the grey line of keys."""
        assert snap_compare(with_task(build()), run_before=then("f10"), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """As narrow, 76 columns wide, over the conversation and the context side, whose
        task panel holds the same goal and steps."""
        app = with_task(build())
        assert snap_compare(app, run_before=then("f10"), terminal_size=WIDE)


def files_dialog_with_a_refusal() -> RunBefore:
    """F10, then `missing.md` entered in the path box."""

    async def run(pilot: Pilot[Any]) -> None:
        await steady(pilot)
        await pilot.press("f12")
        await steady(pilot)
        path = pilot.app.screen.query_one("#files-path", Input)
        path.value = "missing.md"
        await pilot.press("enter")
        await steady(pilot)

    return run


@pytest.fixture
def in_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding `notes.md`, where ctxchat runs (paths are shown from there)."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\nThe parser rejects tabs in keys.\n")
    monkeypatch.chdir(folder)
    return folder


class TestFilesDialog:
    def test_narrow(self, build: BuildApp, in_folder: Path, snap_compare: SnapCompare) -> None:
        """F10 with notes.md attached, then `missing.md` entered: the `Files` dialog, the
        path box holding `missing.md`, under it in red `Cannot attach missing.md: there is
        no such file.`, the list `notes.md · 10 tokens · sent whole, 0.2%` (highlighted), and the grey
        line of keys."""
        app = build()
        app.conversation_screen.session.files.attach("notes.md")
        assert snap_compare(app, run_before=files_dialog_with_a_refusal(), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, in_folder: Path, snap_compare: SnapCompare) -> None:
        """As narrow, 90 columns wide, over the context side, whose shares say `a file is
        attached: it takes 25% from working` and whose files panel sends notes.md whole."""
        app = build()
        app.conversation_screen.session.files.attach("notes.md")
        assert snap_compare(app, run_before=files_dialog_with_a_refusal(), terminal_size=WIDE)
