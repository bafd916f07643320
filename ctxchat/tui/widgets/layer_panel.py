"""One context layer's panel (content, counts, what was left out and why), and the stack of them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from ctxchat.core.attribution import Use
from ctxchat.core.budget import Layer
from ctxchat.core.figure_words import over_cap, share_words
from ctxchat.core.history import HistoryMessage, preview
from ctxchat.core.memory import Mode
from ctxchat.core.plan import ContextPlan, Item, LayerPlan, LeftOut
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.text import clean, signed, tokens
from ctxchat.tui.themes import layer_variable
from ctxchat.tui.widgets.budget_bar import BudgetBar

__all__ = ["ContextPanels", "LayerPanel", "ModeChange", "mode_change"]

_MODE_DESCRIPTIONS = {
    Mode.PERSONALIZATION.value: "every memory kind; preferences and hypotheses labelled",
    Mode.OBJECTIVE.value: "facts and constraints only; preferences and hypotheses left out",
}


@dataclass(frozen=True, slots=True)
class ModeChange:
    """What a mode switch did to the request: memory entries in and out, and the token change."""

    mode: str
    added: frozenset[str]
    removed: frozenset[str]
    token_delta: int

    def describe(self) -> str:
        """`mode objective: −2 entries, −41 tokens`."""
        entries = len(self.added) - len(self.removed)
        if self.added and self.removed:
            moved = f"+{len(self.added)} / \u2212{len(self.removed)} entries"
        elif entries:
            moved = f"{signed(entries)} {'entry' if abs(entries) == 1 else 'entries'}"
        else:
            moved = "no entries change"
        return f"mode {self.mode}: {moved}, {signed(self.token_delta)} tokens"


# A layer panel lists at most this many items (the newest); the rest are counted in one line.
SHOWN_ITEMS = 60
OPTIONAL_LAYERS = (Layer.TASK, Layer.FILES)


def mode_change(previous: ContextPlan, plan: ContextPlan) -> ModeChange:
    """The difference between the plans before and after a mode switch."""
    before = {item.ref for item in previous.layer(Layer.MEMORY).items}
    after = {item.ref for item in plan.layer(Layer.MEMORY).items}
    return ModeChange(
        plan.mode,
        frozenset(after - before),
        frozenset(before - after),
        plan.tokens - previous.tokens,
    )


# What the panels say of an item the plan names in its own terms (kept in `--json`).
_PLAIN_LABELS = {"reply-primer": "the start of the reply, which the chat template adds"}


def _item_label(item: Item) -> str:
    # Working-layer items are the stored messages themselves; their label is only the role.
    if isinstance(item, HistoryMessage):
        return f"{item.role}: {preview(clean(item.content), 50)}"
    return _PLAIN_LABELS.get(item.ref, clean(item.label))


def _fold_mark(collapsed: bool) -> str:
    """▸ folded, ▾ open: the header's first mark."""
    return "▸ " if collapsed else "▾ "


class LayerPanel(Vertical, can_focus=True):
    """A layer's header (tokens, budget, share) above what it holds and what it left out.

    A click on the header folds or unfolds the panel (so does Enter with the panel focused);
    the fold stays through every new plan. Refs marked `added` get a `+` (new since a mode
    switch); left-out refs marked `removed` a `−`.

    A layer longer than a share of the terminal's height scrolls on its own (the wheel over
    it, the arrows and page keys with the panel focused): a long working memory no longer
    pushes the other layers and the memory panel out of sight.
    """

    # A click folds; it does not take focus from the composer, where typing goes on.
    FOCUS_ON_CLICK = False

    DEFAULT_CSS = """
    LayerPanel {
        height: auto;
        border-left: outer $layer-free;
        padding: 0 0 0 1;
        margin: 0 0 1 0;
        &.-system { border-left: outer $layer-system; }
        &.-memory { border-left: outer $layer-memory; }
        &.-summary { border-left: outer $layer-summary; }
        &.-task { border-left: outer $layer-task; }
        &.-files { border-left: outer $layer-files; }
        &.-working { border-left: outer $layer-working; }
        &.-input { border-left: outer $layer-input; }
        &:focus { background: $boost; }
        & > .layer-panel--header { text-style: bold; }
        & > .layer-panel--header:hover { background: $boost; }
        & > .layer-panel--scroll {
            height: auto;
            max-height: 40vh;
            overflow-x: hidden;
            overflow-y: auto;
            scrollbar-size-vertical: 1;
        }
        & .layer-panel--body {
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        /* Notes are read whole: they wrap, never cut at the panel's edge. */
        & > .layer-panel--notes { display: none; }
        & > .layer-panel--notes.-any { display: block; }
        & > .layer-panel--source { display: none; color: $foreground-muted; }
        & > .layer-panel--source.-any { display: block; }
        & > .layer-panel--source:hover { background: $boost; }
        & > .layer-panel--flag { display: none; color: $text-error; }
        & > .layer-panel--flag.-any { display: block; }
        &.-collapsed > .layer-panel--scroll, &.-collapsed .layer-panel--body,
        &.-collapsed > .layer-panel--notes, &.-collapsed > .layer-panel--source {
            display: none;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("LayerPanel")

    @dataclass
    class PromptAsked(Message):
        """The system layer's panel asks for the preset dialog ("preset") or the system
        prompt editor ("prompt"), by its key or a click."""

        what: Literal["preset", "prompt"]

    collapsed: reactive[bool] = reactive(False)
    """True when only the header shows."""

    def __init__(
        self,
        layer: Layer,
        *,
        collapsed: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.context_layer = layer
        self.add_class(f"-{layer.value}", update=False)  # mounting styles it
        self._header = Static(
            Content(_fold_mark(collapsed) + layer.value), classes="layer-panel--header"
        )
        self._header.tooltip = "Click to fold or unfold this layer"
        self._body = Static(Content(), classes="layer-panel--body")
        self.body_scroll = VerticalScroll(
            self._body, classes="layer-panel--scroll", can_focus=False
        )
        self._notes = Static(Content(), classes="layer-panel--notes")
        self._source = Static(Content(), classes="layer-panel--source")
        self._source.tooltip = "Click to choose a preset; click the prompt to edit it"
        self._flag = Static(Content(), classes="layer-panel--flag")
        self._flag_text = ""
        self._shown: tuple[LayerPlan, frozenset[str], frozenset[str]] | None = None
        self._used: Mapping[str, Use] = {}
        self.set_reactive(LayerPanel.collapsed, collapsed)
        self.set_class(collapsed, "-collapsed", update=False)

    @property
    def layer_plan(self) -> LayerPlan | None:
        """The layer on show."""
        return None if self._shown is None else self._shown[0]

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._flag
        yield self.body_scroll
        yield self._notes
        yield self._source

    def watch_collapsed(self, collapsed: bool) -> None:
        self.set_class(collapsed, "-collapsed")
        if self._shown is not None:
            self._header.update(self._header_content(self._shown[0]))
        else:
            self._header.update(Content(_fold_mark(collapsed) + self.context_layer.value))

    def action_toggle_collapsed(self) -> None:
        self.collapsed = not self.collapsed

    def action_scroll_body(self, lines: int) -> None:
        """Scroll the layer's items by `lines` (up when negative)."""
        self.body_scroll.scroll_relative(y=lines, animate=False)

    def action_page_body(self, pages: int) -> None:
        """Scroll the layer's items by `pages` of what shows of them (up when negative)."""
        page = max(1, self.body_scroll.scrollable_content_region.height - 1)
        self.action_scroll_body(pages * page)

    @on(events.Click, ".layer-panel--header")
    def _fold_on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_collapsed()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The preset and the prompt are the system layer's; other panels only fold.
        if action in ("choose_preset", "edit_prompt"):
            return self.context_layer is Layer.SYSTEM
        return True

    def action_choose_preset(self) -> None:
        self.post_message(self.PromptAsked("preset"))

    def action_edit_prompt(self) -> None:
        self.post_message(self.PromptAsked("prompt"))

    @on(events.Click, ".layer-panel--source")
    def _preset_on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_choose_preset()

    @on(events.Click, ".layer-panel--body")
    def _prompt_on_click(self, event: events.Click) -> None:
        if self.context_layer is Layer.SYSTEM:
            event.stop()
            self.action_edit_prompt()

    def show_source(self, source: str) -> None:
        """Say where the layer's content comes from under it (the system layer: the preset
        and sampling in force, and whose prompt it is); "" says nothing."""
        self._source.update(Content(clean(source)))
        self._source.set_class(bool(source), "-any")

    def update_layer(
        self,
        layer_plan: LayerPlan,
        *,
        added: frozenset[str] = frozenset(),
        removed: frozenset[str] = frozenset(),
    ) -> None:
        """Show `layer_plan`; does nothing when it is what is already shown."""
        shown = (layer_plan, added, removed)
        if shown == self._shown:
            return
        self._shown = shown
        self._header.update(self._header_content(layer_plan))
        self._body.update(self._body_content(layer_plan, added, removed))
        notes = self._notes_content(layer_plan)
        self._notes.update(notes)
        self._notes.set_class(bool(notes), "-any")

    def show_flag(self, text: str) -> None:
        """A line under the header that asks for the user's attention ("" for none); it shows
        while the panel is folded too."""
        if text != self._flag_text:
            self._flag_text = text
            self._flag.update(Content(text))
            self._flag.set_class(bool(text), "-any")

    def mark_used(self, used: Mapping[str, Use]) -> None:
        """Mark what the last reply most likely used (an estimate; evidence on hover)."""
        if used == self._used:
            return
        self._used = used
        if self._shown is not None:
            self._body.update(self._body_content(*self._shown))

    def _used_mark(self, ref: str) -> tuple[Content, list[str]]:
        """The quiet badge after an item the last reply used, and the evidence for it.

        A summary is one item: the lines used are named (`summary:v3#2` is its line 2).
        """
        use = self._used.get(ref)
        if use is not None:
            return Content.styled("  ◆ used", "$secondary"), [f"{ref}: {use.evidence}"]
        lines = {
            int(other.rpartition("#")[2]): other
            for other in self._used
            if other.startswith(ref + "#") and other.rpartition("#")[2].isdecimal()
        }
        if not lines:
            return Content(), []
        numbers = ", ".join(str(n) for n in sorted(lines))
        badge = Content.styled(
            f"  ◆ used: line{'s' if len(lines) > 1 else ''} {numbers}", "$secondary"
        )
        return badge, [f"{lines[n]}: {self._used[lines[n]].evidence}" for n in sorted(lines)]

    def _header_content(self, layer_plan: LayerPlan) -> Content:
        fold = _fold_mark(self.collapsed)
        parts = [
            Content.styled(layer_plan.layer.value, layer_variable(layer_plan.layer.value)),
            Content(f"{tokens(layer_plan.tokens)} tokens"),
        ]
        if layer_plan.layer is Layer.INPUT:
            parts.append(Content.styled("counted first, never cut", "not bold $foreground-muted"))
        else:
            parts.append(
                Content.styled(
                    share_words(layer_plan),
                    "$warning" if over_cap(layer_plan) else "not bold $foreground-muted",
                )
            )
        if layer_plan.left_out:
            parts.append(
                Content.styled(f"{len(layer_plan.left_out)} left out", "not bold $foreground-muted")
            )
        return Content(fold) + Content(" · ").join(parts)

    def _body_content(
        self, layer_plan: LayerPlan, added: frozenset[str], removed: frozenset[str]
    ) -> Content:
        refs = [item.ref for item in layer_plan.items] + [o.ref for o in layer_plan.left_out]
        counts = [item.tokens for item in layer_plan.items] + [
            o.tokens for o in layer_plan.left_out
        ]
        ref_width = max((len(ref) for ref in refs), default=0)
        count_width = max((len(tokens(count)) for count in counts), default=0)

        def columns(ref: str, count: int) -> str:
            return f"{clean(ref):<{ref_width}}  {tokens(count):>{count_width}}  "

        lines: list[Content] = []
        items = layer_plan.items
        if len(items) > SHOWN_ITEMS:
            # A long working memory is thousands of lines: name the older ones in one line
            # and show the newest, so every keystroke's update stays cheap.
            hidden = items[: len(items) - SHOWN_ITEMS]
            lines.append(
                Content.styled(
                    f"  … {len(hidden):,} earlier items, {tokens(sum(i.tokens for i in hidden))} "
                    "tokens (the inspector, f2, lists them all)",
                    "$foreground-muted",
                )
            )
            items = items[len(hidden) :]
        evidence: list[str] = []
        for item in items:
            mark = ("+", "bold $success") if item.ref in added else (" ", "")
            used, why = self._used_mark(item.ref)
            evidence.extend(why)
            lines.append(
                Content.assemble(mark, columns(item.ref, item.tokens), _item_label(item), used)
            )
        # Hovering the layer shows why its items count as used.
        self.tooltip = (
            Content("\n").join(
                [Content("What the last reply most likely used (an estimate):")]
                + [Content(clean(line)) for line in evidence]
            )
            if evidence
            else None
        )
        for left in layer_plan.left_out:
            lines.extend(self._left_out_lines(left, columns(left.ref, left.tokens), removed))
        if not lines:
            lines.append(Content.styled("  nothing", "$foreground-muted"))
        return Content("\n").join(lines)

    @staticmethod
    def _notes_content(layer_plan: LayerPlan) -> Content:
        """The layer's notes (something to fix) and hints (how it chose), wrapped whole."""
        lines = [Content.styled(f"! {clean(note)}", "$warning") for note in layer_plan.notes]
        lines.extend(
            Content.styled(f"i {clean(hint)}", "$foreground-muted") for hint in layer_plan.hints
        )
        return Content("\n").join(lines)

    @staticmethod
    def _left_out_lines(left: LeftOut, columns: str, removed: frozenset[str]) -> Iterable[Content]:
        mark = ("\u2212", "bold $error") if left.ref in removed else (" ", "")
        yield Content.assemble(mark, (columns + clean(left.label), "$foreground-muted"))
        yield Content.styled(f"    {clean(left.detail)}", "italic $foreground-muted")


class ContextPanels(VerticalScroll):
    """The context side: mode, budget bar, the last mode switch's effect, one panel per layer.

    Built once; `update_plan` only changes what the widgets show, so it can run on every keystroke.
    """

    DEFAULT_CSS = """
    ContextPanels {
        height: 1fr;
        & > .context-panels--mode { padding: 0 1; }
        & > .context-panels--change { padding: 0 1; color: $foreground-muted; }
        & > .context-panels--change.-empty { display: none; }
        & > .context-panels--budget { padding: 0 1; color: $foreground-muted; }
        & > .context-panels--budget.-empty { display: none; }
        & > BudgetBar { margin: 0 0 1 0; }
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._mode_line = Static(Content(), classes="context-panels--mode")
        self._change_line = Static(Content(), classes="context-panels--change -empty")
        self._budget_line = Static(Content(), classes="context-panels--budget -empty")
        self.budget_bar = BudgetBar()
        self.panels = {layer: LayerPanel(layer, id=f"layer-{layer.value}") for layer in Layer}
        # The task and files panels show only while their layer holds something.
        for layer in OPTIONAL_LAYERS:
            self.panels[layer].display = False
        self._plan: ContextPlan | None = None
        self._change: ModeChange | None = None

    @property
    def plan(self) -> ContextPlan | None:
        """The plan on show."""
        return self._plan

    @property
    def last_mode_change(self) -> ModeChange | None:
        """The effect of the last mode switch, shown until the next one."""
        return self._change

    def compose(self) -> ComposeResult:
        yield self._mode_line
        yield self.budget_bar
        yield self._budget_line
        yield self._change_line
        yield from self.panels.values()

    def update_plan(
        self,
        plan: ContextPlan,
        previous: ContextPlan | None = None,
        *,
        window_source: str = "config",
        server_prompt_tokens: int | None = None,
        sent_tokens: int | None = None,
        cached_tokens: int | None = None,
    ) -> None:
        """Show `plan`. When `previous` (the plan just before) has another mode, the switch's
        effect is shown — entries in and out, tokens — and stays until the next switch.
        `cached_tokens` is how many prompt tokens the server took from its cache last time."""
        if previous is not None and previous.mode != plan.mode:
            self._change = mode_change(previous, plan)
            self._change_line.update(self._change_content(self._change))
            self._change_line.remove_class("-empty")
        if self._plan is None or self._plan.mode != plan.mode:
            self._mode_line.update(self._mode_content(plan.mode))
        self._plan = plan
        self.budget_bar.update_plan(
            plan,
            window_source=window_source,
            server_prompt_tokens=server_prompt_tokens,
            sent_tokens=sent_tokens,
        )
        budget_content = self._budget_content(plan, cached_tokens)
        self._budget_line.update(budget_content)
        self._budget_line.set_class(not budget_content.plain, "-empty")
        present = {layer_plan.layer for layer_plan in plan.layers}
        for layer in OPTIONAL_LAYERS:
            if layer not in present:  # a plan from before the layer existed
                self.panels[layer].display = False
        for layer_plan in plan.layers:
            if layer_plan.layer in OPTIONAL_LAYERS:
                self.panels[layer_plan.layer].display = bool(
                    layer_plan.items or layer_plan.left_out or layer_plan.notes
                )
            added: frozenset[str] = frozenset()
            removed: frozenset[str] = frozenset()
            if self._change is not None and layer_plan.layer is Layer.MEMORY:
                added, removed = self._change.added, self._change.removed
            self.panels[layer_plan.layer].update_layer(layer_plan, added=added, removed=removed)

    def flag_summary(self, text: str) -> None:
        """Flag the summary layer ("" clears the flag): what it lost, not yet reviewed."""
        self.panels[Layer.SUMMARY].show_flag(text)

    def mark_used(self, used: Mapping[str, Use]) -> None:
        """Mark in each layer what the last reply most likely used (an estimate)."""
        for panel in self.panels.values():
            panel.mark_used(used)

    def forget_mode_change(self) -> None:
        """Drop the last mode switch's note (another conversation, or a message was sent)."""
        self._change = None
        self._change_line.update("")
        self._change_line.add_class("-empty")

    @staticmethod
    def _budget_content(plan: ContextPlan, cached_tokens: int | None) -> Content:
        """Why the shares in force differ from the configured ones, and the cacheable prefix."""
        lines: list[Content] = []
        if plan.share_notes:
            shares = ", ".join(
                f"{name} {share * 100:.0f}%" for name, share in plan.shares.items() if share
            )
            lines.append(Content.assemble(("shares in use now: ", "bold"), shares))
            lines.extend(Content(f"  {clean(note)}") for note in plan.share_notes)
        if plan.prefix_messages:
            prefix = (
                f"same start as the last request: {plan.prefix_tokens:,} tokens "
                f"({plan.prefix_messages} message{'s' if plan.prefix_messages != 1 else ''}), "
                "which a server's prompt cache can reuse"
            )
            if cached_tokens is not None:
                prefix += f" · the server reused {cached_tokens:,} last time"
            lines.append(Content(prefix))
        return Content("\n").join(lines)

    @staticmethod
    def _mode_content(mode: str) -> Content:
        style = (
            "bold $background on $accent"
            if mode == Mode.OBJECTIVE
            else "bold $background on $primary"
        )
        return Content.assemble(
            "mode ",
            (f" {clean(mode)} ", style),
            " ",
            (_MODE_DESCRIPTIONS.get(mode, ""), "$foreground-muted"),
        )

    @staticmethod
    def _change_content(change: ModeChange) -> Content:
        return Content.assemble(("↔ ", "bold $accent"), change.describe())
