"""What a session knows of the server it talks to: its window and where that came from, the
facts it reported (kind, tokenizer, template), counts by its own tokenizer, and the notes
every plan carries about it. One object owns them; it changes only through its methods."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from ctxchat.chat.server_counts import ServerCounts
from ctxchat.chat.window import WindowInfo
from ctxchat.config.server_facts import ServerFacts
from ctxchat.config.settings import Preset, ProviderProfile, Settings
from ctxchat.config.state import server_key
from ctxchat.core.budget import Budget
from ctxchat.core.placement import PlacementChoice
from ctxchat.core.plan import ContextPlan
from ctxchat.core.server_count import TemplateCost
from ctxchat.model.backend import ModelBackend, ModelListing, ServerInfo
from ctxchat.store import Store
from ctxchat.store.errors import StoreError
from ctxchat.store.server_learning import LearnedServer

__all__ = ["ServerKnowledge"]

LEARNED_FROM_ERROR = "learned from an error"
# The server counting up to this much more than ctxchat's estimate is left alone.
UNDERCOUNT_TOLERANCE = 1.02
# A request's count teaches the undercount only from prompts that fill at least this share of
# the room for them: a short prompt's ratio is mostly the fixed tokens a template adds.
LEARNING_SHARE = 0.25
TOLD_SOURCES = ("server", "probed", LEARNED_FROM_ERROR)


class ServerKnowledge:
    """The session's server: its window (`window`), what it said about itself (`facts`),
    counts by its tokenizer (`counts`) and notes for every plan (`notes`).

    A session on another conversation of the same server shares what was learned
    (`copy`); switching to another model or server starts afresh (`forget`).
    """

    def __init__(self, window: WindowInfo) -> None:
        self.window = window
        """The window planned with, and its source (config, server, probed, table…)."""
        self.facts: ServerFacts | None = None
        """What the server said about itself (this run, or kept from an earlier one)."""
        self.counts: ServerCounts | None = None
        """Counts by the server's own tokenizer, where it has one."""
        self.notes: tuple[str, ...] = ()
        """What went wrong finding the server's facts (a probe that timed out, a tokenizer
        that failed, a window that shrank): every plan carries them as warnings."""
        self._listing: ModelListing | None = None
        self._usage_ratio: float | None = None
        self.undercount = 1.0
        """How much more the server counted a request than ctxchat's estimate did (a chat
        template whose markers its tokenizer spells out, a tokenizer tiktoken only
        approximates), as a refusal, a reply's usage or the server's own tokenizer showed:
        plans keep room for as much (see `Settings.budget`)."""
        self.gap = 0
        """The most tokens the server counted beyond ctxchat's estimate of one request: plans
        keep at least as much free."""
        self._served_model: str | None = None
        self._counting: set[asyncio.Task[object]] = set()
        self._kept_in: tuple[Store, str] | None = None
        self.tell: Callable[[], None] = _nobody
        """Told when what is known changes the next request (the window, the server's own
        counts, the room kept for its undercount): the session's `plan_changed`."""

    def copy(self) -> ServerKnowledge:
        """The same knowledge, for another session on the same server and model."""
        other = ServerKnowledge(self.window)
        other.facts, other.counts, other.notes = self.facts, self.counts, self.notes
        other.undercount, other.gap, other._kept_in = self.undercount, self.gap, self._kept_in
        return other

    # --- what is kept for every process and run ------------------------------------------

    def keep_in(self, store: Store, base_url: str, model: str) -> None:
        """Keep what requests teach of the server at `base_url` serving `model` in `store`,
        and plan with what any process kept there: every run, the app and each command plan
        alike."""
        if not base_url:
            return
        self._kept_in = (store, f"{server_key(base_url)} {model}")
        self.refresh()

    def refresh(self) -> None:
        """Plan with what another process (or an earlier run) learned of this server since."""
        if self._kept_in is None:
            return
        store, where = self._kept_in
        with contextlib.suppress(StoreError):  # what was learned only makes plans safer
            kept = store.server_learning.server_learning(where)
            if kept is not None:
                self._adopt(kept)

    def _adopt(self, kept: LearnedServer) -> None:
        self.undercount = max(self.undercount, kept.undercount)
        self.gap = max(self.gap, kept.gap)
        if kept.window is not None and self._may_learn_window(kept.window):
            self.window = WindowInfo(kept.window, LEARNED_FROM_ERROR, (kept.window_note,))
            self.note(kept.window_note)

    def _may_learn_window(self, window: int) -> bool:
        # A window the user configured stays theirs; one the server reported gives way only
        # to a smaller one a refusal named (the server restarted with less).
        source = self.window.source
        if source == "config" or window == self.window.context_window:
            return False
        return source not in TOLD_SOURCES or window < self.window.context_window

    def _keep(self, window_note: str | None = None) -> None:
        if self._kept_in is None:
            return
        store, where = self._kept_in
        learned = self.window.context_window if self.window.source == LEARNED_FROM_ERROR else None
        if learned is not None and window_note is None:
            window_note = self.window.warnings[0] if self.window.warnings else ""
        with contextlib.suppress(StoreError):
            kept = store.server_learning.keep_server_learning(
                where,
                LearnedServer(self.undercount, self.gap, learned, window_note or ""),
            )
            self._adopt(kept)

    def forget(self, window: WindowInfo, *, kept_in: tuple[Store, str, str] | None = None) -> None:
        """Another model or server: nothing learned of this one holds (`window` is what is
        known before asking the new one; `kept_in`: the store, base URL and model where what
        is learned of the new one is kept)."""
        self.window = window
        self.facts = None
        self._listing = None
        self.undercount = 1.0
        self.gap = 0
        self._kept_in = None
        if kept_in is not None:
            self.keep_in(*kept_in)

    def budget(self, settings: Settings, profile: ProviderProfile, preset: Preset | None) -> Budget:
        """The budget in force (raises BudgetError when window and reserve cannot work),
        with room for what any process learned of the server so far; a preset's
        max_output_tokens is the reply's reserve."""
        self.refresh()
        return settings.budget(
            profile,
            self.window.context_window,
            undercount=self.planning_undercount,
            gap=self.planning_gap,
            output_reserve=preset.max_output_tokens if preset is not None else 0,
        )

    # --- the window ---------------------------------------------------------------------

    def use_window(self, window: WindowInfo) -> None:
        """Plan with `window` (kept from an earlier run, or found by the server)."""
        self.window = window
        self.tell()

    @property
    def planning_undercount(self) -> float:
        """The undercount plans allow for (1: none, within tolerance)."""
        return 1.0 if self.undercount <= UNDERCOUNT_TOLERANCE else self.undercount

    @property
    def planning_gap(self) -> int:
        """The tokens plans keep free at least (0: none, within tolerance)."""
        return 0 if self.undercount <= UNDERCOUNT_TOLERANCE else self.gap

    def saw_count(self, estimated: int, counted: int | None) -> None:
        """The server counted `counted` tokens for what ctxchat estimated at `estimated`:
        plans are fitted to the larger of the two from now on, in every process."""
        if not (counted and estimated > 0 and counted > estimated):
            return
        # Rounded up, as kept: a process that learns it plans as one that reads it.
        ratio = math.ceil(counted / estimated * 1000) / 1000
        # The difference in tokens of a prompt the server took (a refused one's is the ratio's
        # to tell): no later prompt gets less room for it.
        gap = counted - estimated if counted <= self.window.context_window else 0
        if ratio <= self.undercount and gap <= self.gap:
            return
        self.undercount = max(self.undercount, ratio)
        self.gap = max(self.gap, gap)
        self._keep()
        self.tell()

    def learn_window(self, window: int) -> str:
        """The server refused a prompt over its window of `window` tokens: plan with it.
        Returns the note told about it (a window that shrank says so)."""
        before = self.window
        if before.source in TOLD_SOURCES and window < before.context_window:
            note = (
                f"The server's context window shrank from {before.context_window:,} to "
                f"{window:,} tokens (restarted with less?); planning with {window:,}."
            )
        else:
            note = (
                f"The server refused a prompt over its window of {window:,} tokens; "
                "planning with it."
            )
        self.window = WindowInfo(window, LEARNED_FROM_ERROR, (note,))
        self.note(note)
        self._keep(note)
        self.tell()
        return note

    # --- what the server said ------------------------------------------------------------

    def note(self, note: str) -> None:
        """Add a note about the server to every plan from now on (once)."""
        if note not in self.notes:
            self.notes = (*self.notes, note)

    def heard_listing(self, listing: ModelListing) -> None:
        """The server's `/models` answer, just received (the reachability check): the next
        `take_listing` hands it on, so finding the server's model and window asks no more."""
        self._listing = listing

    def take_listing(self) -> ModelListing | None:
        """The `/models` answer heard since the last take (None: none), once."""
        listing, self._listing = self._listing, None
        return listing

    def learned(
        self, info: ServerInfo, *, configured: bool, counting: tuple[Store, ModelBackend, str]
    ) -> ServerFacts | None:
        """What a probe found (`info`): its notes, its tokenizer, its window unless one is
        `configured`. `counting` is where counts by its tokenizer are kept and asked (the
        store, the backend, and the base URL and model they are kept under)."""
        self.notes = info.warnings
        if info.tokenizer and info.tokenizer_name:
            self.count_with(info.tokenizer_name, info.template, *counting)
        if not info.context_window:
            if info.warnings:
                self.window = dataclasses.replace(
                    self.window, warnings=self.window.warnings + info.warnings
                )
            return None
        facts = ServerFacts(
            context_window=info.context_window,
            window_source=info.window_source,
            tokenizer="server" if info.tokenizer else "",
            flavour=info.kind,
            checked_at=datetime.now(UTC),
            warnings=info.warnings,
            tokenizer_name=info.tokenizer_name or "",
            template_per_message=info.template.per_message if info.template else None,
            template_drops_system=bool(info.template and info.template.drops_system),
        )
        if not configured:
            self.window = WindowInfo(info.context_window, info.window_source, info.warnings)
            self._keep()  # the server just said its window: one a refusal named gives way
        self.facts = facts
        self.tell()
        return facts

    def use_facts(
        self, facts: ServerFacts | None, store: Store, backend: ModelBackend | None, where: str
    ) -> None:
        """Plan with what an earlier run learned of the server (kept in the state file)."""
        self.facts = facts
        if facts is not None and facts.tokenizer_name and facts.template_per_message is not None:
            template = TemplateCost(facts.template_per_message, facts.template_drops_system)
            if backend is not None:
                self.count_with(facts.tokenizer_name, template, store, backend, where)

    # --- the server's own counts --------------------------------------------------------------

    def count_with(
        self,
        tokenizer: str,
        template: TemplateCost | None,
        store: Store,
        backend: ModelBackend,
        where: str,
    ) -> None:
        """Count with the server's `tokenizer` from now on (its kept counts, its template's
        calibrated cost; `where` is the base URL and model); without a calibration, the
        estimate stands."""
        if template is None:
            return
        self.counts = ServerCounts(store, backend, f"{tokenizer} {where}", template)
        self.tell()

    @property
    def drops_system(self) -> bool:
        """Whether the server's chat template drops system messages (its calibration said
        so, this run or an earlier one)."""
        if self.counts is not None:
            return self.counts.template.drops_system
        return self.facts is not None and self.facts.template_drops_system

    def placement_note(self, placement: PlacementChoice) -> str | None:
        """What a plan says about a template that drops system messages (None: it keeps them)."""
        if not self.drops_system:
            return None
        if placement is PlacementChoice.SYSTEM:
            return (
                "The server's chat template drops system messages: the system prompt, memory, "
                "summary and recall never reach the model, as [context] system_placement = "
                '"system" keeps them there ("auto" sends them at the start of the first user '
                "message)."
            )
        return (
            "The server's chat template drops system messages: the system prompt, memory, "
            "summary and recall go at the start of the first user message instead."
        )

    def count_texts(self, texts: list[str]) -> None:
        """Count `texts` with the server's tokenizer in the background (those not counted)."""
        counts = self.counts
        if counts is None or not texts:
            return
        self.in_background(self._count(counts, texts))

    async def _count(self, counts: ServerCounts, texts: list[str]) -> None:
        failure = counts.failure
        if await counts.count(texts) or counts.failure != failure:
            self.tell()  # the plan's figure is the server's now (or says why it is not)

    def in_background(self, work: Coroutine[Any, Any, object]) -> None:
        """Run `work` (counting or rendering with the server) in the background; `counted`
        waits for it, `stop_counting` cancels it."""
        task = asyncio.ensure_future(work)
        self._counting.add(task)  # held until done: a task nobody holds may be collected
        task.add_done_callback(self._counting.discard)

    async def counted(self) -> None:
        """Wait until the background counting started so far is done."""
        while self._counting:
            await asyncio.gather(*self._counting)

    async def stop_counting(self) -> None:
        for task in list(self._counting):
            task.cancel()
        if self._counting:
            await asyncio.gather(*self._counting, return_exceptions=True)

    def saw_usage(self, plan: ContextPlan, prompt_tokens: int | None) -> None:
        """The server counted `prompt_tokens` for the request of `plan`: later plans keep
        room for what it counts beyond ctxchat's estimate, before it refuses one."""
        if plan.tokens and prompt_tokens:
            self._usage_ratio = prompt_tokens / plan.tokens
            self._saw_planned(plan, prompt_tokens)

    def _saw_planned(self, plan: ContextPlan, counted: int) -> None:
        """The server counts `counted` tokens for `plan`'s request (taken from prompts large
        enough to tell; see `LEARNING_SHARE`)."""
        room = plan.context_window - plan.output_reserve
        if room > 0 and plan.tokens >= room * LEARNING_SHARE:
            self.saw_count(plan.tokens, counted)

    def saw_served_model(self, served: str | None) -> None:
        """The server named `served` in its reply: a change means another model (and another
        tokenizer) is behind the same name now."""
        if served is None:
            return
        before, self._served_model = self._served_model, served
        if before is not None and served != before:
            self.note(
                f"The server now answers as '{served}' (it was '{before}'); its earlier token "
                "counts no longer apply, and the estimate stands in."
            )
            self.counts = None
            self.tell()

    # --- what a plan says of it -----------------------------------------------------------

    def annotate(self, plan: ContextPlan, placement: PlacementChoice) -> ContextPlan:
        """The plan with the server's own count as its counter's note, and the notes about
        the server as warnings."""
        counts = self.counts
        if counts is not None and counts.failure is not None:
            self.note(f"The server's tokenizer failed ({counts.failure}); counts are the estimate.")
            self.counts = counts = None
        figure = None
        if counts is not None and plan.messages:
            figure, note = counts.describe(plan)
            plan = dataclasses.replace(
                plan, exact=figure.exact, counter_note=note, server_tokens=figure.tokens
            )
        elif self._usage_ratio is not None and plan.messages and not plan.exact:
            # An approximate count, no tokenizer on the server, but it reported usage: scale
            # the estimate by what it said.
            calibrated = round(plan.tokens * self._usage_ratio)
            plan = dataclasses.replace(
                plan,
                counter_note=f"{plan.counter_note}; calibrated to the server's usage: "
                f"~{calibrated:,} tokens",
            )
        notes = self.notes
        margin = plan.context_window - plan.output_reserve - plan.total_budget
        if margin > 0:
            notes = (*notes, margin_note(margin, self.undercount, self.gap))
        placed = self.placement_note(placement)
        if placed is not None and placed not in notes:
            notes = (*notes, placed)
        if notes:
            plan = dataclasses.replace(plan, warnings=plan.warnings + notes)
        # A plan's own server figure teaches nothing here: the plan is fitted to it (see
        # `chat/server_fit.py`), so planning the same request twice gives the same plan.
        return plan


def margin_note(margin: int, undercount: float, gap: int) -> str:
    """What a plan says of the tokens it keeps free for the server's larger counts."""
    larger = f"up to {undercount - 1:.0%} larger" if undercount > 1 else "larger"
    most = f" (at most {gap:,} more so far)" if gap else ""
    return (
        f"The server counts requests {larger} than ctxchat's estimate{most}: {margin:,} "
        "tokens of the window are kept free for the difference."
    )


def _nobody() -> None:
    """Nobody is told (a ServerKnowledge no session holds yet)."""
