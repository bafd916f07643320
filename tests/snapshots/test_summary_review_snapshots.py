"""What a summary loses, seen: the review of a summary made by hand (with lost details, and
with none), and the flag on a summary in force that lost details nobody reviewed."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.summary_loss import LostDetail
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import ScriptedModelServer
from ctxchat.tui.app import CtxChatApp

from .snapshot_apps import BuildApp, say, then

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
LARGE = (160, 45)
SMALL_WORKING = "[context]\nmin_recent = 2\n[summary]\nauto = false\n"
VAGUE = "They talked about the cache size, where it lives, and what to run."


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as running:
        yield running


def cache_talk(build: BuildApp, server: ScriptedModelServer, summary: str) -> CtxChatApp:
    """Three exchanges about a cache (a size, a path, a command with markup and an escape
    in it); the model's summary is `summary`."""
    app = build(base_url=server.base_url, extra=SMALL_WORKING)
    store = app.workspace.store
    conversation = app.conversation_screen.session.stored_id
    say(store, conversation, "user", "How large should the cache be?")
    say(store, conversation, "assistant", "Set the cache to 1200 MB.")
    say(store, conversation, "user", "Where does it live, and how do I test it?")
    say(
        store,
        conversation,
        "assistant",
        "Keep it under /var/lib/cachesvc/data; run `echo [red]hi[/red]\x1b[31m` to test.",
    )
    say(store, conversation, "user", "Anything else?")
    say(store, conversation, "assistant", "No, that is all.")
    server.script(summary)
    return app


class TestSummaryReview:
    def test_narrow(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """Ctrl+S, confirmed: `Review the summary`; the headline names v1 and messages
        #1–#4; the model's text in an editable box; `3 details lost:` and one line each,
        what matters most first (the path `/var/lib/cachesvc/data`, the command `echo
        [red]hi[/red]…` as typed, its escape made visible, then `number 1200 MB from
        message #2`), the first highlighted; Reject / Keep; the footer
        `^s Keep`, `⏎ Add back`, `esc Reject`."""
        app = cache_talk(build, server, VAGUE)
        assert snap_compare(app, run_before=then("ctrl+s", "enter"), terminal_size=NARROW)

    def test_at_160x45(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """As narrow, at most 140 columns wide in the middle of the screen."""
        app = cache_talk(build, server, VAGUE)
        assert snap_compare(app, run_before=then("ctrl+s", "enter"), terminal_size=LARGE)


class TestSummaryReviewNothingLost:
    summary = (
        "The cache is 1200 MB, under /var/lib/cachesvc/data; `echo [red]hi[/red]\x1b[31m` tests it."
    )

    def test_narrow(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """The review with the text focused and one line under it: `Nothing the folded
        turns held is missing.`; no list."""
        app = cache_talk(build, server, self.summary)
        assert snap_compare(app, run_before=then("ctrl+s", "enter"), terminal_size=NARROW)

    def test_at_160x45(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """As narrow, wider."""
        app = cache_talk(build, server, self.summary)
        assert snap_compare(app, run_before=then("ctrl+s", "enter"), terminal_size=LARGE)


def flagged(build: BuildApp, server: ScriptedModelServer) -> CtxChatApp:
    """A summary in force (v1, folding #1–#4) that lost two details, not reviewed."""
    app = cache_talk(build, server, VAGUE)
    store = app.workspace.store
    conversation = app.conversation_screen.session.stored_id
    first, *_, last = store.messages.messages(conversation)[:4]
    store.summaries.add_summary(
        conversation,
        text=VAGUE,
        first_message_id=first.id,
        last_message_id=last.id,
        strategy="summarize",
        model="gpt-4o",
        tokens=14,
        lost=[
            LostDetail("1200 MB", DetailKind.NUMBER, first.id + 1, "Set the cache to 1200 MB."),
            LostDetail("/var/lib/cachesvc/data", DetailKind.PATH, last.id, ""),
        ],
    )
    return app


class TestLossFlag:
    def test_context_side(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """The summary panel on the context side: under its header, in the error colour,
        `⚑ 2 details lost — f3 to review`; then `summary:v1` and the note `The summary in
        force (v1) was not reviewed: it lost 2 details (…)`, said under the budget bar too."""
        app = flagged(build, server)
        assert snap_compare(app, run_before=then(), terminal_size=LARGE)

    def test_versions(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """F3: `v1 active ⚑2` in the list; over the text, `⚑ 2 details lost — ^l to
        review`; the footer holds `^l Review losses`."""
        app = flagged(build, server)
        assert snap_compare(app, run_before=then("f3"), terminal_size=NARROW)
