"""What the whole app looks like in each state (SVG snapshots of the real app).

Narrow is 80x24, where the context side is hidden (below 110 columns); "with context" is
the same after ctrl+b shows it; wide is 200x50. Regenerate with
`pytest tests/snapshots --snapshot-update` and look at the pictures before committing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryKind
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_loss import LostDetail
from ctxchat.model.discovery import FoundServer
from ctxchat.store import Store
from ctxchat.testing.harness import TEST_KEY
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp

from ..waiting import until
from .conftest import SHOWN_CONFIG
from .snapshot_apps import (
    HOUR,
    NOW,
    BuildApp,
    Clock,
    exchange,
    planned,
    reply,
    say,
    steady,
    then,
)

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
WIDE = (200, 50)

TOML_TURNS = [
    ("user", "How do I read a TOML file in Python 3.11?"),
    ("assistant", "Use the standard library's `tomllib`: `tomllib.load(f)` on a binary file."),
]


def every_kind(store: Store, conversation_id: int) -> None:
    """Memory with each kind, a pin, a key, a conversation-only entry and an excluded one."""
    store.memory.add_memory(MemoryKind.FACT, "The service runs on PostgreSQL 16.", importance=6)
    store.memory.add_memory(
        MemoryKind.CONSTRAINT, "Everything must work offline.", key="offline", importance=9
    )
    store.memory.add_memory(MemoryKind.PREFERENCE, "Prefers short answers.", pinned=True)
    store.memory.add_memory(MemoryKind.HYPOTHESIS, "The slowdown comes from the ORM.", importance=7)
    store.memory.add_memory(
        MemoryKind.FACT,
        "Deploys happen on Fridays.",
        importance=3,
        conversation_id=conversation_id,
    )
    store.memory.add_memory(MemoryKind.CONSTRAINT, "Never touch the billing tables.", enabled=False)


def open_conversation(app: CtxChatApp) -> tuple[Store, int]:
    return app.workspace.store, app.conversation_screen.session.stored_id


class TestEmptyNewConversation:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """Header `conversation 1` and `test · gpt-4o · mode: personalization`; an empty
        conversation pane; the composer with its placeholder `Write a message — Enter
        sends…`; the footer with the app's keys. No context side at 80 columns."""
        assert snap_compare(build(), run_before=then(), terminal_size=NARROW)

    def test_narrow_with_context(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """Ctrl+B shows the context side beside the (now narrower) conversation: `mode
        personalization` (blue badge), a bar with thin purple and green slivers, `used 13 of
        14,000 · free 13,987`, the legend one item a line where it must wrap, `window 16,000
        (config)`, `reserve 2,000`, a green `exact (o200k_base, …`; below it the header of
        the system panel and `memory · 0 entries · 0 in context (0 tokens) · mode
        personalization`."""
        assert snap_compare(build(), run_before=then(context=True), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """At 200 columns the context side shows at once: the mode line, the budget bar
        (`used 13 of 14,000 · free 13,987`), the legend on two lines, and the panels system
        (`You are a helpful assistant.`), memory, summary and working (`nothing`) and input
        (`reply-primer 3 primes the reply`); `memory · 0 entries …` below; the whole
        footer, from `f6 Memory` to `^b Context`."""
        assert snap_compare(build(), run_before=then(), terminal_size=WIDE)


def marked_replies(app: CtxChatApp) -> CtxChatApp:
    """A complete reply with reasoning, an interrupted reply and a failed one."""
    store, conversation = open_conversation(app)
    say(store, conversation, *TOML_TURNS[0])
    reply(
        store,
        conversation,
        "Use the standard library's `tomllib`:\n\n```python\nimport tomllib\n\n"
        "with open('config.toml', 'rb') as f:\n    config = tomllib.load(f)\n```",
        reasoning="The user is on 3.11, so tomllib is in the standard library.",
    )
    say(store, conversation, "user", "And how do I write one?")
    reply(
        store,
        conversation,
        "Install **tomli-w** and call",
        status=MessageStatus.INTERRUPTED,
        error="The connection dropped in the middle of the reply; the part received so far "
        "was kept. Retry to get the whole reply.",
    )
    say(store, conversation, "user", "Please finish that answer.")
    reply(
        store,
        conversation,
        "",
        status=MessageStatus.FAILED,
        error="The model server failed with an internal error (500). Retry in a moment.",
    )
    return app


class TestConversationWithInterruptedAndFailedReplies:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The newest turns: `You` asks `And how do I write one?`; the assistant's reply
        `Install tomli-w and call` (tomli-w in bold) with an amber `⚠ Interrupted: The
        connection dropped…  ·  retry: ctrl+r · details: click or ctrl+d`; `Please
        finish that answer.`; then an empty reply with a red `✖ Failed: The model server
        failed with an internal error (500)…`. Each failure is told there only: the status
        line under the conversation is empty, and there is no notification."""
        app = marked_replies(build())
        assert snap_compare(app, run_before=then(), terminal_size=NARROW)

    def test_narrow_with_context(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The context side beside the last turns (the interrupted and failed markers wrap
        in the narrower pane): `used 107 of 14,000`, `working 94 0.7%` in the legend."""
        app = marked_replies(build())
        assert snap_compare(app, run_before=then(context=True), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """All six turns: the first reply has a collapsed `▶ Reasoning` above its Markdown
        (`tomllib` as inline code, a highlighted python code block); then the interrupted
        reply (amber marker) and the failed one (red marker). The working panel, `94 tokens
        · … · 1 left out`, lists message:1 to message:5 and, greyed, `message:6 0` with
        `excluded: failed reply`."""
        app = marked_replies(build())
        assert snap_compare(app, run_before=then(), terminal_size=WIDE)


RICH_REPLY = """## Choosing the storage

SQLite in WAL mode fits a single small VM:

- **Durability:** both engines fsync the log on commit; `synchronous = NORMAL` trades
  the last transaction after a power cut for fewer fsyncs.
- **Operations:** a file you copy, no server to upgrade.
  - nested: back it up with the online backup API

1. Read `user_version`.
2. Apply every newer script, each in its own transaction.

```python
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("CREATE INDEX IF NOT EXISTS events_by_device ON events (device_id, created_at)")
```

> Rule of thumb: if every write comes through one service, start with SQLite."""


def rich_reply(app: CtxChatApp) -> CtxChatApp:
    """A reply with a heading, wrapped list items, a nested list, numbers, code, a quote."""
    store, conversation = open_conversation(app)
    say(store, conversation, "user", "Which database for the sync service?")
    reply(store, conversation, RICH_REPLY)
    return app


class TestReplyWithListsCodeAndAQuote:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The reply's Markdown: `Choosing the storage` as a heading; two bullets (`•` in
        blue) whose wrapped lines start under their text, not under the bullet, with
        `Durability:` in bold and `synchronous = NORMAL` as inline code; the nested `▪`
        item under the second bullet; ` 1.` and ` 2.` numbered items; the highlighted
        python lines in their code block, the second cut at the pane's edge with a
        horizontal scrollbar under the block; the quote with its bar on the left. The
        reply ends on its last line, with no blank line before the status."""
        app = rich_reply(build())
        assert snap_compare(app, run_before=then(), terminal_size=(80, 40))

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The same reply at 200 columns: every list item on one line, and the code block
        without a scrollbar (its lines fit)."""
        app = rich_reply(build())
        assert snap_compare(app, run_before=then(), terminal_size=WIDE)


def objective_after_switch(app: CtxChatApp) -> CtxChatApp:
    store, conversation = open_conversation(app)
    every_kind(store, conversation)
    exchange(store, conversation, TOML_TURNS)
    return app


class TestObjectiveModeAfterSwitch:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """After ctrl+o the header says `mode: objective`; the conversation is unchanged."""
        app = objective_after_switch(build())
        assert snap_compare(app, run_before=then("ctrl+o"), terminal_size=NARROW)

    def test_narrow_with_context(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The context side: `mode objective` (amber badge) `facts and constraints only;
        preferences and hypotheses left out`, `used 108 of 14,000`, `memory 52` in the
        legend; below, `memory · 6 entries · 3 in context (52 tokens) · mode objective`
        and the first entry, the fact, highlighted."""
        app = objective_after_switch(build())
        assert snap_compare(app, run_before=then("ctrl+o", context=True), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The amber `↔ mode objective: −2 entries, −41 tokens` under the budget bar; the
        memory layer panel (`52 tokens · … · 3 left out`) lists memory:2, 1 and 5, then,
        marked with a red `−`, memory:3 and memory:4 `excluded: objective mode leaves out
        preferences` / `… hypotheses`, and memory:6 `excluded by you`; in the memory panel
        the preference and hypothesis are greyed with the same reasons."""
        app = objective_after_switch(build())
        assert snap_compare(app, run_before=then("ctrl+o"), terminal_size=WIDE)


def memory_of_every_kind(app: CtxChatApp) -> CtxChatApp:
    store, conversation = open_conversation(app)
    every_kind(store, conversation)
    return app


class TestMemoryPanelWithEveryKind:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """At 80 columns the memory panel is hidden with the context side: only the empty
        conversation and the composer show."""
        app = memory_of_every_kind(build())
        assert snap_compare(app, run_before=then(), terminal_size=NARROW)

    def test_narrow_with_context(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """Ctrl+B, then F6: `memory · 6 entries · 5 in context (93 tokens) · mode
        personalization` over the focused list, its first entry highlighted in blue (the
        green `fact` badge, `global · importance 6 · in context · 13 tokens`, `The service
        runs on PostgreSQL 16.`); the footer shows the memory keys from `^a Add` on."""
        app = memory_of_every_kind(build())
        assert snap_compare(app, run_before=then("f6", context=True), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """F6 focuses the memory panel: `memory · 6 entries · 5 in context (93 tokens) ·
        mode personalization`; entries with green, red, purple and yellow kind badges,
        `● pinned` on the preference, `this conversation` on the Friday deploys, `offline:`
        as the constraint's key, and the billing constraint greyed with `excluded by you`;
        under the list, for the highlighted entry, `memory:1: typed by hand`. The memory
        layer panel lists the pinned preference first."""
        app = memory_of_every_kind(build())
        assert snap_compare(app, run_before=then("f6"), terminal_size=WIDE)


def with_draft(text: str) -> Callable[[Pilot[Any]], Any]:
    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, CtxChatApp)
        screen = app.conversation_screen
        await screen.mounted.wait()  # the screen composes in its own task, after the app's
        # Focus first: the app focuses the composer once the conversation is drawn, and a
        # picture taken before that would lack the cursor.
        screen.composer.focus()
        await pilot.pause()
        screen.composer.insert(text)
        await planned(pilot, text)
        await steady(pilot)

    return run


def then_draft(text: str, *keys: str, context: bool = False) -> Callable[[Pilot[Any]], Any]:
    async def run(pilot: Pilot[Any]) -> None:
        await with_draft(text)(pilot)
        await then(*keys, context=context)(pilot)

    return run


OVER_BUDGET = "The quick brown fox jumps over the lazy dog. " * 100


class TestOverBudgetDraft:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """A 1,000-token window: the composer holds a long draft (the fox sentence, over and
        over) at its full height, scrolled to its end; the conversation is empty."""
        app = build(context_window=1_000, output_reserve=200)
        assert snap_compare(app, run_before=then_draft(OVER_BUDGET), terminal_size=NARROW)

    def test_narrow_with_context(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The context side: the budget bar mostly green (the draft) and red at its right
        end, `used 1,018 of 800`, `over budget by 218` in red, `input 1,008 126.0%`, and
        the amber warning `The message is 218 tokens over…`."""
        app = build(context_window=1_000, output_reserve=200)
        run = then_draft(OVER_BUDGET, context=True)
        assert snap_compare(app, run_before=run, terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """Wide: `used 1,018 of 800 · over budget by 218`, the whole warning `The message is
        218 tokens over the budget of 800 tokens.`; layer budgets 80, 80, 160 and 480; the
        input panel `1,008 tokens` with `input 1,005 The quick brown fox…`."""
        app = build(context_window=1_000, output_reserve=200)
        assert snap_compare(app, run_before=then_draft(OVER_BUDGET), terminal_size=WIDE)


def inspector_app(app: CtxChatApp) -> CtxChatApp:
    store, conversation = open_conversation(app)
    every_kind(store, conversation)
    exchange(store, conversation, TOML_TURNS)
    return app


class TestRequestInspector:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """F2 with a draft: `Next request · gpt-4o`, `5 messages · 160 tokens (exact) of
        14,000 · mode personalization`, the JSON / Messages / Diff / Rendered tabs, and the start of the
        JSON body with a purple gutter by the system message and an orange one by the
        memory message; the inspector's keys in the footer (esc Close, ^c Copy JSON…)."""
        run = then_draft("And how do I write one?", "f2")
        assert snap_compare(inspector_app(build()), run_before=run, terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The whole JSON body fits: `model`, the system prompt, the memory message with
        labelled entries, the two stored turns and the draft, `stream: true`,
        `stream_options` with `include_usage: true`, `max_tokens: 2000` (the body the client
        sends)."""
        run = then_draft("And how do I write one?", "f2")
        assert snap_compare(inspector_app(build()), run_before=run, terminal_size=WIDE)

    def test_empty_composer(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """F2 with nothing typed: under the counts, `⟨your next message⟩ is a placeholder for
        the message you have not typed yet: the rest is what would be sent with it` (the
        placeholder bold yellow); the Messages tab ends with the input row holding it."""
        run = then("f2", "ctrl+t")
        assert snap_compare(inspector_app(build()), run_before=run, terminal_size=WIDE)


def summary_versions(app: CtxChatApp, clock: Clock) -> CtxChatApp:
    store, conversation = open_conversation(app)
    turns = [("user", f"Question {n} about backups?") for n in range(1, 5)]
    messages = []
    for role, text in turns:
        messages.append(say(store, conversation, role, text))
        messages.append(reply(store, conversation, f"Answer to: {text}"))
    clock.now = NOW - 2 * HOUR
    store.summaries.add_summary(
        conversation,
        text="The user asked about backups: they run nightly and are kept for a week.",
        first_message_id=messages[0].id,
        last_message_id=messages[3].id,
        strategy=SummaryStrategy.SUMMARIZE,
        model="gpt-4o",
        tokens=17,
    )
    clock.now = NOW - HOUR
    store.summaries.add_summary(
        conversation,
        text="Backups run nightly at 02:00 and are kept for seven days.",
        first_message_id=messages[0].id,
        last_message_id=messages[3].id,
        strategy=SummaryStrategy.SUMMARIZE,
        model=None,
        tokens=13,
        edited=True,
    )
    clock.now = NOW
    return app


class TestSummaryVersionsScreen:
    def test_narrow(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """F3: `Summary versions`; the list has `● v2 active edited` (green, yellow) over
        `v1`, each with `#1–#4`; the pane shows v2's details (`messages #1–#4 · summarize ·
        edited by hand · 13 tokens · 2025-01-06 08:30`) and its text; footer keys Close,
        Roll back (dimmed: v2 is already in force), Edit, Rebuild, Summarize now."""
        app = summary_versions(build(), clock)
        assert snap_compare(app, run_before=then("f3"), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """As narrow, the dialog 140 columns wide with the details on one line; the eight
        turns about backups dimmed behind it."""
        app = summary_versions(build(), clock)
        assert snap_compare(app, run_before=then("f3"), terminal_size=WIDE)


def waiting_summary(app: CtxChatApp, clock: Clock) -> CtxChatApp:
    """The versions above, and v3, made after a reply, held for review: it lost a path and
    repeats its own instructions."""
    summary_versions(app, clock)
    store, conversation = open_conversation(app)
    messages = store.messages.messages(conversation)
    store.summaries.add_summary(
        conversation,
        text="Backups were discussed. Write the summary.",
        first_message_id=messages[0].id,
        last_message_id=messages[5].id,
        strategy=SummaryStrategy.SUMMARIZE,
        model="gpt-4o",
        tokens=9,
        lost=[LostDetail("/srv/backups", DetailKind.PATH, messages[4].id, "Kept in /srv/backups.")],
        faults=["repeats its own instructions (“Write the summary.”)"],
        waiting=True,
    )
    return app


class TestWaitingSummary:
    def test_versions(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """F3: the list starts with `v3 waits for review` (bold yellow) and `⚑2` (red) over
        `● v2 active edited` and `v1`; the pane shows v2, the one in force, selected."""
        app = waiting_summary(build(), clock)
        assert snap_compare(app, run_before=then("f3"), terminal_size=WIDE)

    def test_panel(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """The context side: the summary panel still holds v2, with the note `Summary v3
        waits for your review, not in force: it lost 1 detail (path “/srv/backups”); it
        repeats its own instructions (“Write the summary.”). The turns it would fold are sent
        as they were; review it with f3.`"""
        app = waiting_summary(build(), clock)
        assert snap_compare(app, run_before=then(), terminal_size=WIDE)


class TestConversationOutsideTheRequest:
    def test_narrow(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """Eight turns about backups; the first four are in summary v2: their gutter is a
        faint line, their headers muted, and under `Answer to: Question 2…` one italic line
        `┄┄ above: in summary v2, 4 messages`.
        Questions 3 and 4 and their answers have the usual gutter."""
        app = summary_versions(build(), clock)
        assert snap_compare(app, run_before=then(), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """As narrow, with the context side: the summary panel holds v2."""
        app = summary_versions(build(), clock)
        assert snap_compare(app, run_before=then(), terminal_size=WIDE)


def summarize_preview(app: CtxChatApp) -> CtxChatApp:
    store, conversation = open_conversation(app)
    for n in range(1, 5):
        say(store, conversation, "user", f"Question {n} about backups?")
        say(store, conversation, "assistant", f"Answer {n}: they run nightly.")
    return app


SMALL_WORKING = "[context]\nmin_recent = 2\n[summary]\nauto = false\n"


class TestSummarizePreview:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """Ctrl+S: `Summarize now`; `Fold 6 messages (#1–#6, 66 tokens) into summary v1 with
        the summarize strategy.`, one line per message (`#1  you  10 tok  Question 1 about
        backups?` … `#6  assistant  12 tok  Answer 3: they run nightly.`), the note about
        the originals, and the Cancel / `Summarize 6` buttons, the latter focused."""
        app = summarize_preview(build(extra=SMALL_WORKING))
        assert snap_compare(app, run_before=then("ctrl+s"), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """As narrow, at most 120 columns wide in the middle of the screen."""
        app = summarize_preview(build(extra=SMALL_WORKING))
        assert snap_compare(app, run_before=then("ctrl+s"), terminal_size=WIDE)


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(models=["gpt-4o"], requires_key=TEST_KEY) as running:
        yield running


def extraction(build: BuildApp, server: ScriptedModelServer) -> CtxChatApp:
    app = build(base_url=server.base_url)
    store, conversation = open_conversation(app)
    store.memory.add_memory(MemoryKind.FACT, "The team deploys on Fridays.")
    question = say(store, conversation, "user", "We deploy on Fridays; I think Rust is nicer.")
    say(store, conversation, "assistant", "Noted.")
    proposals: list[dict[str, Any]] = [
        {"kind": "fact", "text": "Deploys happen on Fridays.", "importance": 6},
        {"kind": "preference", "text": "The user likes Rust.", "message_id": question.id},
        {"kind": "rumour", "text": "The CI is flaky.", "importance": 2},
    ]
    server.script(json.dumps(proposals))
    return app


class TestExtractionReview:
    def test_narrow(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """Ctrl+T, then `ctrl+a` on the first proposal: `Review extracted memory`; the amber line
        `⚠ 1 problem in the model's reply: Entry 3 has kind 'rumour'; taken as a
        hypothesis.`; the first proposal marked `✓` (green) with `like memory #1: The team
        deploys on Fridays.`, the preference (`from message #1`) highlighted, the hypothesis
        undecided; `1 to add · 0 to update · 0 rejected · 2 undecided`; the footer with
        Accept, Edit, Reject, Update existing, Done, Cancel."""
        app = extraction(build, server)
        assert snap_compare(app, run_before=then("ctrl+t", "ctrl+a"), terminal_size=NARROW)

    def test_wide(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """As narrow, in a dialog 130 columns wide, each proposal's note on its own line."""
        app = extraction(build, server)
        assert snap_compare(app, run_before=then("ctrl+t", "ctrl+a"), terminal_size=WIDE)


class TestFailedSendToldOnce:
    def test_at_160x45(
        self, build: BuildApp, server: ScriptedModelServer, snap_compare: SnapCompare
    ) -> None:
        """`Hello there` sent to a server that answers 500: the empty reply ends in one red
        marker line, `✖ Failed: The model server failed with an internal error (500).
        Retry in a moment; if it keeps failing, check the server's log.  ·  retry: ctrl+r ·
        details: click or ctrl+d`; the status line under the conversation is empty. On the
        right every layer panel is open (`▾`) down to the input panel, and the memory panel
        below takes one line, `memory · 0 entries · F6 then ctrl+a adds one`."""
        app = build(base_url=server.base_url)
        server.fail_next(Fault.SERVER_ERROR)

        async def send(pilot: Pilot[Any]) -> None:
            await steady(pilot)
            app.conversation_screen.composer.insert("Hello there")
            await planned(pilot, "Hello there")
            await pilot.press("enter")
            await steady(pilot)

        assert snap_compare(app, run_before=send, terminal_size=(160, 45))


FOUND = [FoundServer("ollama", "http://127.0.0.1:11434/v1", ("llama3.2:3b", "qwen2.5:7b"))]


class TestFirstRunSetup:
    def test_found_server_narrow(
        self, build_first_run: Callable[..., CtxChatApp], snap_compare: SnapCompare
    ) -> None:
        """`Welcome to ctxchat`, the config path `/home/you/.config/ctxchat/config.toml`, the
        choices OpenAI (`OPENAI_API_KEY: not set`), `Ollama at http://127.0.0.1:11434/v1 (2
        models)` (chosen) and `Another server`; the fields prefilled with the Ollama URL
        (greyed) and `llama3.2:3b`; `Models on this server: llama3.2:3b, qwen2.5:7b.`"""
        app = build_first_run(FOUND)
        assert snap_compare(app, run_before=then(), terminal_size=NARROW)

    def test_found_server_wide(
        self, build_first_run: Callable[..., CtxChatApp], snap_compare: SnapCompare
    ) -> None:
        """As narrow, the column 96 wide in the middle; the buttons Quit / Save and start in
        full; the footer holds only `^s Save`, `^q Quit` and the palette: the
        conversation keys are hidden until there is a conversation."""
        app = build_first_run(FOUND)
        assert snap_compare(app, run_before=then(), terminal_size=WIDE)

    def test_no_server_narrow(
        self, build_first_run: Callable[..., CtxChatApp], snap_compare: SnapCompare
    ) -> None:
        """OpenAI chosen (its URL, `gpt-4o-mini`, an empty masked API key field,
        `OPENAI_API_KEY` prefilled), then `No local model server answered on 127.0.0.1…` and
        the amber `OPENAI_API_KEY is not set in this shell: type the key above, or set it
        before you chat.`"""
        app = build_first_run([])
        assert snap_compare(app, run_before=then(), terminal_size=NARROW)

    def test_no_server_wide(
        self, build_first_run: Callable[..., CtxChatApp], snap_compare: SnapCompare
    ) -> None:
        """As narrow, everything on one screen, with `The key is read from $OPENAI_API_KEY
        when ctxchat starts: export OPENAI_API_KEY=…` under the fields and the hint
        `OpenAI's own API, with the key typed above or the one in the variable.`"""
        app = build_first_run([])
        assert snap_compare(app, run_before=then(), terminal_size=WIDE)


class TestCannotReachTheServer:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """80x24, nothing listening at the configured URL: an empty conversation and, above
        the composer, in red: `Cannot reach the model server at http://127.0.0.1:9/v1: start
        it, or change base_url in /home/you/.config/ctxchat/config.toml (or pass
        --base-url).` No toast, no window warning."""
        app = build(context_window=0, offline=False)
        app.workspace.loaded = dataclasses.replace(app.workspace.loaded, path=SHOWN_CONFIG)

        async def run_before(pilot: Pilot[Any]) -> None:
            await until(pilot, lambda: app.conversation_screen.server_notice is not None)
            await steady(pilot)

        assert snap_compare(app, run_before=run_before, terminal_size=NARROW)


def switcher(app: CtxChatApp, clock: Clock) -> CtxChatApp:
    store, conversation = open_conversation(app)
    clock.now = NOW - 26 * HOUR
    store.conversations.rename_conversation(conversation, "Reading TOML in Python")
    exchange(store, conversation, TOML_TURNS)
    clock.now = NOW - 3 * HOUR
    backups = store.conversations.create_conversation("Nightly backups", model="gpt-4o").id
    exchange(store, backups, [("user", "When do backups run?"), ("assistant", "At 02:00.")])
    clock.now = NOW - HOUR
    store.conversations.create_conversation("An empty one", model="gpt-4o")
    clock.now = NOW
    return app


class TestConversationSwitcher:
    def test_narrow(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """Ctrl+L: `Conversations`, the search box (focused) with its placeholder, then
        newest first: `An empty one` (`0 messages · 0 tokens · 2025-01-06 08:30`), `Nightly
        backups` (`2 messages · 19 tokens · 2025-01-06 06:30`) and, marked `●` green and
        highlighted, `Reading TOML in Python` (`2 messages · 43 tokens · 2025-01-05
        07:30`); the footer shows only `esc Close` while the search box has the focus."""
        app = switcher(build(), clock)
        assert snap_compare(app, run_before=then("ctrl+l"), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """As narrow, in a dialog up to 110 columns wide."""
        app = switcher(build(), clock)
        assert snap_compare(app, run_before=then("ctrl+l"), terminal_size=WIDE)


RECALL_DRAFT = "What did we decide about the database?"
# Semantic recall is left out of these pictures: its vectors come from a float model and a
# worker thread, and the pictures must not depend on either.
NO_SEMANTIC = "[recall]\nsemantic = false"


def long_conversation_with_decisions(app: CtxChatApp) -> CtxChatApp:
    """Forty turns of unrelated talk with two decisions about the database, the later one
    reversing the earlier."""
    store, conversation = open_conversation(app)
    topics = ["the logging format", "the release notes", "the test fixtures", "the CI cache"]
    for turn in range(1, 41):
        if turn == 3:
            question = "We decided to use MySQL for the main database."
        elif turn == 20:
            question = "Change of plan: we decided on PostgreSQL for the main database."
        else:
            question = f"Could you review {topics[turn % 4]} once more (round {turn})?"
        say(store, conversation, "user", question)
        reply(store, conversation, f"Reviewed {topics[turn % 4]}: it looks fine now. " * 12)
    return app


class TestRecallLayer:
    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """A 3,000-token window, forty turns, and the draft `What did we decide about the
        database?`: under the budget legend `shares in force: system 10%, memory 10%, summary
        25%, recall 15%, working 40%` with the two reasons (recall found earlier messages;
        turn 41 > 20); the recall panel holds the PostgreSQL decision (turn 20) above the
        MySQL one (turn 3), each with `matched decide, database; score …, N messages ago`,
        then `2 left out`: the replies after them (125 tokens each), read with them, over the
        recall cap; and, muted (not in the warning colour), the hint that newer messages
        outrank older ones."""
        app = long_conversation_with_decisions(
            build(context_window=3_000, output_reserve=500, extra=NO_SEMANTIC)
        )
        assert snap_compare(app, run_before=then_draft(RECALL_DRAFT), terminal_size=WIDE)

    def test_narrow_with_context(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The same at 80x24 with the context side shown: the mode line, the bar with a teal
        recall segment, and the legend with `recall` in it."""
        app = long_conversation_with_decisions(
            build(context_window=3_000, output_reserve=500, extra=NO_SEMANTIC)
        )
        run = then_draft(RECALL_DRAFT, context=True)
        assert snap_compare(app, run_before=run, terminal_size=NARROW)
