"""What the context side, the memory panel and the inspector look like (SVG snapshots).

Regenerate with `pytest tests/tui_widgets --snapshot-update` and look at the report before
committing new baselines.
"""

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from textual.pilot import Pilot
from textual.widget import Widget

from ctxchat.chat.rendered import RenderedRequest
from ctxchat.core.attribution import Use
from ctxchat.core.budget import Budget
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.testing.server.flavours import render_chatml
from ctxchat.testing.server.script import simple_token_count
from ctxchat.tui.screens.inspector import RequestInspector
from ctxchat.tui.widgets.budget_bar import BudgetBar
from ctxchat.tui.widgets.layer_panel import ContextPanels
from ctxchat.tui.widgets.memory_panel import EntryNotes, MemoryPanel

from ..waiting import until
from .widget_hosts import ENTRIES, HostApp, make_plan, request_body, sampling_change

SnapCompare = Callable[..., bool]
WIDE = (150, 50)


def host(build: Callable[[], Sequence[Widget]], theme: str = "textual-dark") -> HostApp:
    return HostApp(build, theme=theme)


class TestBudgetBar:
    def test_normal_plan(self, snap_compare: SnapCompare) -> None:
        """A bar of thin purple, amber, teal, blue and green slivers (one cell each) then grey
        free space; `used … of 123,904 · free …`; the legend (`■ system 10 <0.1%` … `■ free …
        99.8%`) wrapped without splitting an item; `window 128,000 (server) · reserve 4,096`
        and a green `exact (o200k_base, the encoding of gpt-4o)`."""

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(BudgetBar).update_plan(make_plan(), window_source="server")

        assert snap_compare(host(lambda: [BudgetBar()]), run_before=show)

    def test_with_drift_after_a_reply(self, snap_compare: SnapCompare) -> None:
        """As the normal plan, plus a last line `server counted 251 · drift +13 (+5.5%)` with
        the drift in amber (between 2% and 10%)."""

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(BudgetBar).update_plan(
                make_plan(), window_source="table", server_prompt_tokens=251, sent_tokens=238
            )

        assert snap_compare(host(lambda: [BudgetBar()]), run_before=show)

    def test_over_budget(self, snap_compare: SnapCompare) -> None:
        """A bar mostly green (the huge input) whose right end is red (what cannot fit);
        `used 9,018 of 7,000 · over budget by 2,018` in red, no free entry in the legend, and
        the warning `The message is 2,018 tokens over the budget of 7,000 tokens.` in amber."""
        plan = make_plan(new_input="token " * 9_000, budget=Budget(8_000, 1_000))

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(BudgetBar).update_plan(plan, window_source="config")

        assert snap_compare(host(lambda: [BudgetBar()]), run_before=show)

    def test_counted_by_the_server(self, snap_compare: SnapCompare) -> None:
        """Where the server counts: `used 2,041 of 7,168 by the server's count` (the figure
        bold), then `ctxchat's estimate …: the server's tokenizer and its chat template add
        …` and `free 5,127`; the note reads `exact counts (server tokenizer, 2,041 tokens)`
        and `template adds 169 tokens`."""
        plan = dataclasses.replace(
            make_plan(budget=Budget(8_192, 1_024)),
            server_tokens=2_041,
            counter_note="exact: server tokenizer, 2,041 tokens; template adds 169 tokens",
        )

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(BudgetBar).update_plan(plan, window_source="server")

        assert snap_compare(host(lambda: [BudgetBar()]), run_before=show)

    def test_over_the_window_by_the_servers_count(self, snap_compare: SnapCompare) -> None:
        """The server counts more than the window holds with the reply: `used 7,300 of
        7,168 by the server's count` in red and `over the window by 132 by the server's
        count, reply included` in red; no free entry, in the text or the legend."""
        plan = dataclasses.replace(make_plan(budget=Budget(8_192, 1_024)), server_tokens=7_300)

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(BudgetBar).update_plan(plan, window_source="server")

        assert snap_compare(host(lambda: [BudgetBar()]), run_before=show)

    def test_wide_with_drift(self, snap_compare: SnapCompare) -> None:
        """At 150 columns the legend fits on one line and the window line on the next; the
        drift line is red (`drift −40 (−16.8%)`, over 10%)."""

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(BudgetBar).update_plan(
                make_plan(), window_source="server", server_prompt_tokens=198, sent_tokens=238
            )

        assert snap_compare(host(lambda: [BudgetBar()]), run_before=show, terminal_size=WIDE)


def panels_after_switch(pilot: Pilot[None], mode: Mode) -> None:
    before = make_plan(mode=mode.toggled())
    panels = pilot.app.query_one(ContextPanels)
    panels.update_plan(before, window_source="server")
    panels.update_plan(make_plan(mode=mode), before, window_source="server")


class TestContextPanels:
    def test_personalization(self, snap_compare: SnapCompare) -> None:
        """Mode badge ` personalization ` in blue, the budget bar, then the system panel (purple
        edge) and the memory panel (amber edge) with five entries in and `excluded by you`
        for entry 6; no mode-change line (no switch yet)."""

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(ContextPanels).update_plan(make_plan(), window_source="server")

        assert snap_compare(host(lambda: [ContextPanels()]), run_before=show)

    def test_objective_after_a_switch(self, snap_compare: SnapCompare) -> None:
        """Mode badge ` objective ` in orange; under the bar `↔ mode objective: −2 entries, −41
        tokens`; in the memory panel `−memory:3` and `−memory:4` (red minus) dimmed, each with
        its italic reason `excluded: objective mode leaves out …`."""

        async def show(pilot: Pilot[None]) -> None:
            panels_after_switch(pilot, Mode.OBJECTIVE)

        assert snap_compare(host(lambda: [ContextPanels()]), run_before=show)

    def test_personalization_after_a_switch_wide(self, snap_compare: SnapCompare) -> None:
        """All five layer panels at 150x50: `↔ mode personalization: +2 entries, +41 tokens`,
        `+memory:3` and `+memory:4` marked with a green plus; the working panel lists messages
        13-20 with `messages:1-12 … in summary v3` and `message:16 … excluded: failed reply`
        dimmed; the input panel `counted first, never cut`."""

        async def show(pilot: Pilot[None]) -> None:
            panels_after_switch(pilot, Mode.PERSONALIZATION)

        assert snap_compare(host(lambda: [ContextPanels()]), run_before=show, terminal_size=WIDE)

    def test_memory_and_working_folded_by_a_click(self, snap_compare: SnapCompare) -> None:
        """At 150x50, the memory and working panels folded by a click on their headers: each
        shows only its header, starting with `▸` (`▸ memory · … tokens · …`, `▸ working · …`);
        the system, summary, recall and input panels stay open under `▾` headers."""

        async def fold(pilot: Pilot[None]) -> None:
            panels = pilot.app.query_one(ContextPanels)
            panels.update_plan(make_plan(), window_source="server")
            await pilot.pause()
            await pilot.click("#layer-memory .layer-panel--header")
            await pilot.click("#layer-working .layer-panel--header")

        assert snap_compare(host(lambda: [ContextPanels()]), run_before=fold, terminal_size=WIDE)

    def test_built_in_light_theme(self, snap_compare: SnapCompare) -> None:
        """Textual's own `textual-light` theme (which knows nothing of layers) still draws the
        bar and the panel edges in the default layer colours on a light background."""

        async def show(pilot: Pilot[None]) -> None:
            pilot.app.query_one(ContextPanels).update_plan(make_plan(), window_source="server")

        assert snap_compare(host(lambda: [ContextPanels()], "textual-light"), run_before=show)


class TestMemoryPanel:
    @staticmethod
    def build() -> list[Widget]:
        return [MemoryPanel(ENTRIES, make_plan(memory=ENTRIES, mode=Mode.OBJECTIVE))]

    @staticmethod
    async def focus(pilot: Pilot[None]) -> None:
        pilot.app.query_one(MemoryPanel).option_list.focus()

    def test_all_kinds_pins_and_scopes(self, snap_compare: SnapCompare) -> None:
        """Header `memory · 6 entries · 3 in context (…) · mode objective`; six two-line
        entries with coloured badges (green fact, red constraint, violet preference, yellow
        hypothesis); entry 3 `● pinned`; entry 5 `this conversation`; included entries say
        `in context · N tokens` in green, the others an italic dim reason; the first entry
        highlighted."""
        assert snap_compare(host(self.build), run_before=self.focus)

    def test_wide_with_the_cursor_moved(self, snap_compare: SnapCompare) -> None:
        """The same list at 150x50 with the highlight on the third entry (the pinned
        preference)."""
        assert snap_compare(
            host(self.build), run_before=self.focus, press=["down", "down"], terminal_size=WIDE
        )

    def test_empty_takes_one_line(self, snap_compare: SnapCompare) -> None:
        """No entries: only the header line `memory · 0 entries · F6 then ctrl+a adds one` at the
        top; the rest of the screen is left free (the panel takes
        only the room its entries need)."""

        def empty() -> list[Widget]:
            return [MemoryPanel([], make_plan(memory=[]))]

        assert snap_compare(host(empty))


# 2026-11-24 12:00 UTC: the day the old database entry was superseded.
NOV_24 = 1795521600.0
OVER_TIME = [
    MemoryEntry(
        1,
        MemoryKind.FACT,
        "The service runs on MySQL 8.",
        key="database",
        source="message:4",
        superseded_by=7,
        superseded_at=NOV_24,
    ),
    MemoryEntry(
        7,
        MemoryKind.FACT,
        "The service runs on PostgreSQL 16.",
        key="database",
        source="messages:9-12",
    ),
    MemoryEntry(4, MemoryKind.HYPOTHESIS, "The slowdown comes from the ORM.", turn=10),
    MemoryEntry(8, MemoryKind.HYPOTHESIS, "Deploys fail on Mondays.", turn=50),
    MemoryEntry(2, MemoryKind.CONSTRAINT, "Everything must work offline.", importance=9),
]
NOTES = EntryNotes(
    turns_now=55,
    hypothesis_turns=30,
    used={"memory:7": Use("memory:7", ("postgresql", "service"), 0.6)},
    idle=frozenset({"memory:2", "memory:4", "memory:8"}),
    replies=20,
)


class TestMemoryOverTime:
    @staticmethod
    def build() -> list[Widget]:
        return [MemoryPanel(OVER_TIME, make_plan(memory=OVER_TIME))]

    @staticmethod
    async def noted(pilot: Pilot[None]) -> None:
        panel = pilot.app.query_one(MemoryPanel)
        panel.update_entries(OVER_TIME, make_plan(memory=OVER_TIME), NOTES)
        panel.option_list.focus()

    def test_superseded_flagged_and_used(self, snap_compare: SnapCompare) -> None:
        """100x30: `memory:1` (`database: The service runs on MySQL 8.`) dimmed with the italic
        reason `superseded by memory:7 on 2026-11-24`; `memory:7` in context with a quiet
        violet `◆ used`; the hypothesis `memory:4` (waited 45 turns) with an amber line
        `⚑ unconfirmed for 45 turns: confirm as fact (ctrl+y), keep waiting (ctrl+w), or
        delete (del)`, the newer hypothesis `memory:8` not flagged. The list has focus: under
        it `memory:1: pinned from message #4 (ctrl+j: go to it)`."""

        assert snap_compare(host(self.build), run_before=self.noted, terminal_size=(100, 30))

    def test_used_evidence_and_sorted_by_use(self, snap_compare: SnapCompare) -> None:
        """After `f5` and the cursor on `memory:7`: the header ends `unused in the last 20
        replies first (estimate)`; memory:2, memory:4 and memory:8 (no recent reply used
        them) come first, then the others by id; under the list `memory:7: extracted from
        messages #9–#12 (ctrl+j: go to it) · used by the last reply (estimate): shares
        "postgresql", "service"`."""

        assert snap_compare(
            host(self.build),
            run_before=self.noted,
            press=["f5", "end"],
            terminal_size=(100, 30),
        )


class TestInspector:
    @staticmethod
    def opened(**options: Any) -> tuple[HostApp, Callable[[Pilot[None]], Any]]:
        plan = make_plan(new_input="And what about deploys?", mode=Mode.OBJECTIVE)
        previous = make_plan(new_input="What did we decide?")

        async def open_inspector(pilot: Pilot[None]) -> None:
            await pilot.app.push_screen(
                RequestInspector(request_body(plan), plan, previous=previous, **options)
            )
            await pilot.pause()

        return host(lambda: []), open_inspector

    def test_json(self, snap_compare: SnapCompare) -> None:
        """A bordered dialog: `Next request · gpt-4o`, `11 messages · … tokens (exact) of
        123,904 · mode objective`, tabs JSON/Messages/Diff/Rendered with JSON active, the body
        from `{` with `"model": "gpt-4o"` and each message's lines marked by a `▌` in its
        layer colour; the footer shows esc, ^c, ^j, ^t, ^d, ^r."""
        app, show = self.opened()
        assert snap_compare(app, run_before=show)

    def test_diff(self, snap_compare: SnapCompare) -> None:
        """The Diff tab: `same start as the previous request: 1 of 11 messages…`, `What
        changed since the previous request:` (no key besides the messages; messages #2 and
        #11 changed), then the unified diff with
        red `-` lines (the memory message with the preference and hypothesis, the old input)
        and green `+` lines (the objective memory message, the new input)."""
        app, show = self.opened(tab="diff")
        assert snap_compare(app, run_before=show)

    def test_diff_wide(self, snap_compare: SnapCompare) -> None:
        """The same diff at 150x50, whole lines visible."""
        app, show = self.opened(tab="diff")
        assert snap_compare(app, run_before=show, terminal_size=WIDE)

    def test_diff_of_sampling(self, snap_compare: SnapCompare) -> None:
        """The Diff tab of two requests whose max_tokens went 1,024 → 150 and that gained a
        temperature: under the shared start, `What changed since the previous request:`,
        `max_tokens: 1,024 → 150` and `temperature: not sent → 0.3` (the keys in bold
        yellow), `messages: changed #11 user`, then the diff with both keys' lines."""
        body, plan, previous = sampling_change()

        async def show(pilot: Pilot[None]) -> None:
            await pilot.app.push_screen(RequestInspector(body, plan, previous=previous, tab="diff"))
            await pilot.pause()

        assert snap_compare(host(lambda: []), run_before=show, terminal_size=WIDE)

    @staticmethod
    def rendered(*, drops_system: bool = False) -> tuple[HostApp, Callable[[Pilot[None]], Any]]:
        """The Rendered tab of a request as llama.cpp renders it (ChatML, its BOS added by
        the tokenizer), counted by the scripted server's tokenizer."""
        plan = make_plan(new_input="And what about deploys?", mode=Mode.OBJECTIVE)
        messages = plan.request_messages()
        kept = [m for m in messages if not (drops_system and m["role"] == "system")]
        text = render_chatml(kept)
        rendering = RenderedRequest(
            text,
            1 + simple_token_count(text),
            sum(simple_token_count(m["content"]) for m in kept),
            tuple(i for i, m in enumerate(messages) if m not in kept),
            "<bos>",
        )

        async def render(sent: Sequence[Mapping[str, str]]) -> RenderedRequest:
            return rendering

        async def open_rendered(pilot: Pilot[None]) -> None:
            screen = RequestInspector(request_body(plan), plan, tab="rendered", render=render)
            await pilot.app.push_screen(screen)
            await until(pilot, lambda: screen.rendered is not None)
            await pilot.pause()

        return host(lambda: []), open_rendered

    def test_rendered(self, snap_compare: SnapCompare) -> None:
        """The Rendered tab: `As the server's chat template renders it · … tokens by the
        server's tokenizer`, `template adds … tokens to the messages' …`, `<bos> is added by
        the server's tokenizer…`; then the prompt from `<bos><|im_start|>system`, the markers
        (`<|im_start|>user`, `<|im_end|>`) in the accent colour, each message's lines marked
        by a `▌` in its layer colour; the footer gains ^r Rendered."""
        app, show = self.rendered()
        assert snap_compare(app, run_before=show, terminal_size=WIDE)

    def test_rendered_without_system_messages(self, snap_compare: SnapCompare) -> None:
        """A template that drops system messages: three bold red lines `message 1 (system) is
        not in the rendered prompt: the template left it out, the model never reads it` (and
        2, 3: memory and summary), and the prompt starting at the first user turn."""
        app, show = self.rendered(drops_system=True)
        assert snap_compare(app, run_before=show, terminal_size=WIDE)

    def test_messages_wide(self, snap_compare: SnapCompare) -> None:
        """The Messages tab at 150x50: a row per message (#, coloured layer name, role, tokens,
        ref, dim preview), then `total … = … in messages + 3 to prime the reply` and the
        per-layer totals with coloured squares."""
        app, show = self.opened(tab="messages")
        assert snap_compare(app, run_before=show, terminal_size=WIDE)
