"""The memory panel: curated entries with kind, pin, scope, importance and their place in the plan."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.chat.session import ChatSession
from ctxchat.chat.usage import UsageView
from ctxchat.core.attribution import Use
from ctxchat.core.budget import Layer
from ctxchat.core.counts import counted
from ctxchat.core.memory import (
    SWITCHED_OFF_DETAIL,
    MemoryEntry,
    MemoryKind,
    excluded_detail,
    provenance,
    switched_off,
    unconfirmed_turns,
)
from ctxchat.core.plan import ContextPlan
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.memory_usage import UsageEstimate, UsageKey
from ctxchat.tui.text import clean, tokens
from ctxchat.tui.themes import kind_variable

__all__ = [
    "EntryNotes",
    "EntryStatus",
    "MemoryPanel",
    "PanelMessage",
    "entry_status",
    "next_kind",
]

_KINDS = tuple(MemoryKind)
_KIND_WIDTH = max(len(kind.value) for kind in _KINDS)


def next_kind(kind: MemoryKind) -> MemoryKind:
    """The kind after `kind`: fact → constraint → preference → hypothesis → fact."""
    return _KINDS[(_KINDS.index(kind) + 1) % len(_KINDS)]


@dataclass(frozen=True, slots=True)
class EntryStatus:
    """Where an entry stands in the plan: in the request (with its tokens) or left out and why."""

    included: bool
    text: str


def entry_status(entry: MemoryEntry, plan: ContextPlan | None) -> EntryStatus | None:
    """The entry's place in `plan`; None without a plan."""
    if plan is None:
        return None
    layer = plan.layer(Layer.MEMORY)
    for item in layer.items:
        if item.ref == entry.ref:
            return EntryStatus(True, f"in context · {tokens(item.tokens)} tokens")
    for left in layer.left_out:
        if left.ref == entry.ref:
            return EntryStatus(False, left.detail)
    if not entry.enabled:
        return EntryStatus(False, excluded_detail(entry))
    return EntryStatus(False, "not in this conversation's request")


@dataclass(frozen=True, slots=True)
class EntryNotes:
    """What the panel tells beside the plan: hypotheses waiting too long, and what the
    recent replies most likely used (an estimate, never sent to the model)."""

    turns_now: int = 0
    """User turns so far, over every conversation (the clock of hypotheses)."""
    hypothesis_turns: int = 0
    """Flag a hypothesis unconfirmed for this many turns (0: never)."""
    used: Mapping[str, Use] = field(default_factory=dict)
    """What the newest reply most likely drew on, by ref."""
    idle: frozenset[str] = frozenset()
    """Refs no reply of the last `replies` used."""
    replies: int = 0
    conversation_id: int | None = None
    """The conversation on show (None before its first message is stored)."""

    def off_here(self, entry: MemoryEntry) -> bool:
        """True when the user switched `entry` off for the conversation on show."""
        return switched_off(entry, self.conversation_id)

    def flagged(self, entry: MemoryEntry) -> int | None:
        """Turns the entry waited, when it is a hypothesis waiting too long."""
        return unconfirmed_turns(entry, self.turns_now, self.hypothesis_turns)


def left_out_by_you(entry: MemoryEntry, notes: EntryNotes) -> bool:
    """Superseded, excluded or switched off here: what hiding the left-out entries hides."""
    return entry.superseded or not entry.enabled or notes.off_here(entry)


def entry_detail(entry: MemoryEntry, notes: EntryNotes) -> str:
    """The highlighted entry in full: where it came from, and the evidence of its use."""
    origin = provenance(entry.source)
    parts = [f"{entry.ref}: {origin.text}" + (" (ctrl+j: go to it)" if origin.message_id else "")]
    use = notes.used.get(entry.ref)
    if use is not None:
        parts.append(f"used by the last reply (estimate): {use.evidence}")
    elif notes.replies and entry.ref in notes.idle:
        parts.append(f"not used in the last {notes.replies} replies (estimate)")
    return " · ".join(parts)


def _option_id(entry_id: int) -> str:
    return f"memory-{entry_id}"


@dataclass
class PanelMessage(Message):
    """What every message of the memory panel is: one handler hears them all."""

    panel: MemoryPanel

    @property
    def control(self) -> MemoryPanel:
        return self.panel


class MemoryPanel(Vertical):
    """Memory entries, one option each: kind badge, pin mark, scope, importance, plan status, text.

    Keys post messages; the app does the store work and calls `update_entries` back. The
    highlighted entry stays highlighted across updates.
    """

    DEFAULT_CSS = """
    MemoryPanel {
        height: auto;
        /* Docked, so the list's 100% is the room left between them: however many entries,
           the header and the line about the highlighted one stay in view and the list
           scrolls. */
        & > .memory-panel--header { dock: top; padding: 0 1; text-style: bold; }
        & > OptionList { height: auto; max-height: 100%; border: none; padding: 0; }
        /* Empty: the header line only; the list stays focusable (F6, then ctrl+a adds). */
        &.-empty > OptionList { height: 0; }
        & > OptionList:focus { border: none; }
        & > .memory-panel--detail {
            dock: bottom; display: none; padding: 0 1; color: $foreground-muted;
        }
        &.-focused > .memory-panel--detail { display: block; }
    }
    """

    # No bare letters (nor space, + or -): a printable key typed here goes to the composer
    # (see the app), so the panel's actions sit on keys typing cannot hit, and deleting
    # asks first. The ids are those of the letters these keys replace, so remaps still apply.
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("MemoryPanel")

    @dataclass
    class Left(PanelMessage):
        """The user pressed Esc here: back to the composer."""

    @dataclass
    class AddRequested(PanelMessage):
        """The user wants a new entry."""

    @dataclass
    class EditRequested(PanelMessage):
        """The user wants to edit an entry."""

        entry_id: int

    @dataclass
    class DeleteRequested(PanelMessage):
        """The user wants to delete an entry (the app may ask first)."""

        entry_id: int

    @dataclass
    class PinToggled(PanelMessage):
        """Pin or unpin: `pinned` is the state asked for."""

        entry_id: int
        pinned: bool

    @dataclass
    class KindCycled(PanelMessage):
        """Change the kind: `kind` is the one asked for (the next in order)."""

        entry_id: int
        kind: MemoryKind

    @dataclass
    class ScopeToggled(PanelMessage):
        """Change the scope: `make_global` True for every conversation, False for this one."""

        entry_id: int
        make_global: bool

    @dataclass
    class Toggled(PanelMessage):
        """Include or exclude: `enabled` is the state asked for."""

        entry_id: int
        enabled: bool

    @dataclass
    class SwitchedHere(PanelMessage):
        """Switch a shared entry off for this conversation only (`on` False), or on again."""

        entry_id: int
        on: bool

    @dataclass
    class ImportanceChanged(PanelMessage):
        """Importance up or down by `delta`; `importance` is the value asked for (1-10)."""

        entry_id: int
        delta: int
        importance: int

    @dataclass
    class NewVersionRequested(PanelMessage):
        """Write an entry replacing this one (kept as superseded)."""

        entry_id: int

    @dataclass
    class RestoreRequested(PanelMessage):
        """Make the superseded entry current again."""

        entry_id: int

    @dataclass
    class ConfirmRequested(PanelMessage):
        """The hypothesis is confirmed: make it a fact."""

        entry_id: int

    @dataclass
    class KeepRequested(PanelMessage):
        """Keep the hypothesis waiting for confirmation, its clock started again."""

        entry_id: int

    @dataclass
    class SourceRequested(PanelMessage):
        """Show message `message_id`, where entry `entry_id` came from."""

        entry_id: int
        message_id: int

    @dataclass
    class UsageShown(PanelMessage):
        """The panel shows another estimate of what the newest reply most likely used."""

        used: Mapping[str, Use]

    @dataclass
    class _UsageWorkedOut(Message):
        """An estimate worked out in a thread, for `key` of the conversation of `usage`."""

        usage: UsageEstimate
        key: UsageKey
        view: UsageView

    def __init__(
        self,
        entries: Sequence[MemoryEntry] = (),
        plan: ContextPlan | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._entries: dict[int, MemoryEntry] = {}
        self._all: list[MemoryEntry] = []  # every entry, hidden ones included
        self._shown: object = None  # what the list was last built from
        self._header = Static(Content("memory"), classes="memory-panel--header")
        self._list = OptionList(id="memory-list")
        self._detail = Static(Content(), classes="memory-panel--detail")
        self._notes = EntryNotes()
        self._plan: ContextPlan | None = None
        self._by_use = False
        self._hide_left_out = False
        self._hidden = 0  # entries not on show while left-out ones are hidden
        self._session: ChatSession | None = None  # whose entries `show_memory` shows
        self._usage = UsageEstimate(None)
        self._told: Mapping[str, Use] | None = None  # the `used` said last (`UsageShown`)
        self._initial: tuple[Sequence[MemoryEntry], ContextPlan | None] | None = (
            list(entries),
            plan,
        )

    @property
    def option_list(self) -> OptionList:
        """The list of entries (focus it to use the keys)."""
        return self._list

    @property
    def entries(self) -> list[MemoryEntry]:
        """The entries on show, in order."""
        return list(self._entries.values())

    @property
    def highlighted_entry(self) -> MemoryEntry | None:
        """The entry under the cursor."""
        option = self._list.highlighted_option
        if option is None or option.id is None:
            return None
        return self._entries.get(int(option.id.removeprefix("memory-")))

    @property
    def notes(self) -> EntryNotes:
        """The notes on show (hypothesis flags, what recent replies used)."""
        return self._notes

    @property
    def detail_text(self) -> str:
        """The line about the highlighted entry (shown while the list has focus)."""
        entry = self.highlighted_entry
        return "" if entry is None else entry_detail(entry, self._notes)

    @property
    def hidden_count(self) -> int:
        """How many entries are hidden (0 while every entry is on show)."""
        return self._hidden

    @property
    def sorted_by_use(self) -> bool:
        """True while entries no recent reply used come first."""
        return self._by_use

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._list
        yield self._detail

    def on_mount(self) -> None:
        if self._initial is not None:
            self.update_entries(*self._initial)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # The line about the highlighted entry shows while the list has focus.
        self.add_class("-focused")

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.remove_class("-focused")

    def update_entries(
        self,
        entries: Sequence[MemoryEntry],
        plan: ContextPlan | None,
        notes: EntryNotes | None = None,
    ) -> None:
        """Show `entries` (in the order given, or those no recent reply used first), where
        each stands in `plan`, and `notes` (kept from the last call when None)."""
        self._initial = None
        notes = self._notes if notes is None else notes
        self._notes, self._plan = notes, plan
        # Typing replans on every keystroke; the memory layer rarely changes with it, and
        # rebuilding a long list each time costs more than the rest of the context side.
        shown = (
            tuple(entries),
            None if plan is None else (plan.mode, plan.layer(Layer.MEMORY)),
            notes,
            self._by_use,
            self._hide_left_out,
        )
        if shown == self._shown:
            return
        self._shown = shown
        self._all = list(entries)
        if self._hide_left_out:
            entries = [entry for entry in entries if not left_out_by_you(entry, notes)]
        self._hidden = len(self._all) - len(entries)
        if self._by_use:
            entries = sorted(entries, key=lambda entry: entry.ref not in notes.idle)
        kept = self.highlighted_entry
        index = self._list.highlighted
        self._entries = {entry.id: entry for entry in entries}
        self._header.update(
            self._header_content(self._all, plan, notes if self._by_use else None, self._hidden)
        )
        self.set_class(not entries, "-empty")
        self._list.clear_options()
        self._list.add_options(
            Option(self._prompt(entry, entry_status(entry, plan), notes), id=_option_id(entry.id))
            for entry in entries
        )
        if not entries:
            return
        if kept is not None and kept.id in self._entries:
            self._list.highlighted = self._list.get_option_index(_option_id(kept.id))
        else:
            self._list.highlighted = min(index or 0, len(entries) - 1)
        self._show_detail()

    def show_memory(self, session: ChatSession, plan: ContextPlan | None) -> None:
        """Show `session`'s entries where each stands in `plan`, with what the recent replies
        most likely used: an estimate of its conversation, worked out in a thread once per
        new reply or memory change (another conversation starts its own)."""
        self._session = session
        usage = self._usage
        if usage.conversation_id != session.conversation_id:
            usage = self._usage = UsageEstimate(session.conversation_id)
        self._draw(session, plan)
        key = usage.key_now(session)
        if usage.wants(key):
            self._work_out(session, usage, key)

    def _draw(self, session: ChatSession, plan: ContextPlan | None) -> None:
        view = self._usage.view
        notes = EntryNotes(
            turns_now=session.cache.user_turns(),
            hypothesis_turns=session.settings.memory.hypothesis_turns,
            used=view.used,
            idle=view.idle,
            replies=view.replies,
            conversation_id=session.conversation_id,
        )
        self.update_entries(session.memory(), plan, notes)
        if view.used is not self._told:
            self._told = view.used
            self.post_message(self.UsageShown(self, view.used))

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False)
    def _work_out(self, session: ChatSession, usage: UsageEstimate, key: UsageKey) -> None:
        self.post_message(self._UsageWorkedOut(usage, key, usage.work_out(session)))

    @on(_UsageWorkedOut)
    def _worked_out(self, event: _UsageWorkedOut) -> None:
        event.stop()
        usage = event.usage
        usage.view, usage.key = event.view, event.key
        # An estimate finished after its conversation was left stays with it, drawn nowhere.
        if usage is self._usage and self._session is not None:
            self._draw(self._session, self._plan)

    def _show_detail(self) -> None:
        entry = self.highlighted_entry
        detail = "" if entry is None else entry_detail(entry, self._notes)
        self._detail.update(Content(clean(detail)))
        # Hovering the list shows the same, for the entry under the cursor.
        self._list.tooltip = Content(clean(detail)) if detail else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add", "order", "hide_left_out"):
            return True
        entry = self.highlighted_entry
        if action in ("edit", "delete", "pin", "kind", "scope", "include", "importance"):
            # Shown but greyed out in the footer while no entry is highlighted.
            return True if entry is not None else None
        if action == "switch_here":
            # Only an entry shared with other conversations can be off here alone.
            here = self._notes.conversation_id
            return entry is not None and here is not None and entry.conversation_id != here
        # Keys that fit only some entries are hidden from the footer for the others.
        if action == "new_version":
            return entry is not None and not entry.superseded
        if action == "restore":
            return entry is not None and entry.superseded
        if action == "confirm":
            return entry is not None and entry.kind is MemoryKind.HYPOTHESIS
        if action == "keep":
            return entry is not None and self._notes.flagged(entry) is not None
        if action == "source":
            return entry is not None and provenance(entry.source).message_id is not None
        return True

    @on(OptionList.OptionSelected, "#memory-list")
    def _edit_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_edit()

    @on(OptionList.OptionHighlighted, "#memory-list")
    def _refresh_bindings(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_bindings()
        self._show_detail()

    def action_new_version(self) -> None:
        if (entry := self.highlighted_entry) is not None and not entry.superseded:
            self.post_message(self.NewVersionRequested(self, entry.id))

    def action_restore(self) -> None:
        if (entry := self.highlighted_entry) is not None and entry.superseded:
            self.post_message(self.RestoreRequested(self, entry.id))

    def action_confirm(self) -> None:
        entry = self.highlighted_entry
        if entry is not None and entry.kind is MemoryKind.HYPOTHESIS:
            self.post_message(self.ConfirmRequested(self, entry.id))

    def action_keep(self) -> None:
        if (entry := self.highlighted_entry) is not None:
            self.post_message(self.KeepRequested(self, entry.id))

    def action_source(self) -> None:
        entry = self.highlighted_entry
        message_id = None if entry is None else provenance(entry.source).message_id
        if entry is not None and message_id is not None:
            self.post_message(self.SourceRequested(self, entry.id, message_id))

    def action_order(self) -> None:
        """Sort the entries no recent reply used first, or back to the stored order."""
        self._by_use = not self._by_use
        self._redraw()

    def action_hide_left_out(self) -> None:
        """Hide the superseded and excluded entries (and those off here), or show them."""
        self._hide_left_out = not self._hide_left_out
        self._redraw()

    def _redraw(self) -> None:
        entries = sorted(self._all, key=lambda entry: entry.id)
        self.update_entries(entries, self._plan, self._notes)

    def action_leave(self) -> None:
        self.post_message(self.Left(self))

    def action_add(self) -> None:
        self.post_message(self.AddRequested(self))

    def action_edit(self) -> None:
        if (entry := self.highlighted_entry) is not None:
            self.post_message(self.EditRequested(self, entry.id))

    def action_delete(self) -> None:
        if (entry := self.highlighted_entry) is not None:
            self.post_message(self.DeleteRequested(self, entry.id))

    def action_pin(self) -> None:
        if (entry := self.highlighted_entry) is not None:
            self.post_message(self.PinToggled(self, entry.id, not entry.pinned))

    def action_kind(self) -> None:
        if (entry := self.highlighted_entry) is not None:
            self.post_message(self.KindCycled(self, entry.id, next_kind(entry.kind)))

    def action_scope(self) -> None:
        if (entry := self.highlighted_entry) is not None:
            make_global = entry.conversation_id is not None
            self.post_message(self.ScopeToggled(self, entry.id, make_global))

    def action_include(self) -> None:
        if (entry := self.highlighted_entry) is not None:
            self.post_message(self.Toggled(self, entry.id, not entry.enabled))

    def action_switch_here(self) -> None:
        entry = self.highlighted_entry
        if entry is not None and self.check_action("switch_here", ()):
            self.post_message(self.SwitchedHere(self, entry.id, self._notes.off_here(entry)))

    def action_importance(self, delta: int) -> None:
        entry = self.highlighted_entry
        if entry is None:
            return
        importance = entry.importance + delta
        if not 1 <= importance <= 10:
            self.app.bell()
            return
        self.post_message(self.ImportanceChanged(self, entry.id, delta, importance))

    @staticmethod
    def _header_content(
        entries: Sequence[MemoryEntry],
        plan: ContextPlan | None,
        by_use: EntryNotes | None,
        hidden: int,
    ) -> Content:
        parts = [Content("memory"), Content(counted(len(entries), "entry", "entries"))]
        if hidden:
            parts.append(Content.styled(f"{hidden} hidden", "not bold $warning"))
        if not entries:
            parts.append(Content.styled("F6 then ctrl+a adds one", "not bold dim"))
            return Content(" · ").join(parts)
        if plan is not None:
            layer = plan.layer(Layer.MEMORY)
            included = sum(1 for item in layer.items if item.ref.startswith("memory:"))
            parts.append(Content(f"{included} in context ({tokens(layer.tokens)} tokens)"))
            parts.append(Content.styled(f"mode {clean(plan.mode)}", "not bold $accent"))
        if by_use is not None:
            parts.append(
                Content.styled(
                    f"unused in the last {by_use.replies} replies first (estimate)",
                    "not bold $foreground-muted",
                )
            )
        return Content(" · ").join(parts)

    @staticmethod
    def _prompt(entry: MemoryEntry, status: EntryStatus | None, notes: EntryNotes) -> Content:
        kind = entry.kind.value
        badge = Content.styled(
            f" {kind:<{_KIND_WIDTH}} ", f"bold $background on {kind_variable(kind)}"
        )
        meta: list[Content] = []
        if entry.pinned:
            meta.append(Content.styled("● pinned", "bold $accent"))
        meta.append(Content(clean(entry.scope_words)))
        if notes.off_here(entry):
            meta.append(Content.styled("○ off here", "bold $warning"))
        meta.append(Content(f"importance {entry.importance}"))
        if entry.ref in notes.used:
            # Quiet on purpose: an estimate, with its evidence under the list (or on hover).
            meta.append(Content.styled("◆ used", "$secondary"))
        reason = None
        if status is not None and status.included:
            meta.append(Content.styled(clean(status.text), "$success"))
        elif status is not None:
            reason = clean(status.text)
        elif not entry.enabled:
            reason = excluded_detail(entry)
        elif notes.off_here(entry):
            reason = SWITCHED_OFF_DETAIL
        text = " ".join(clean(entry.text).split())
        body = f"{clean(entry.key)}: {text}" if entry.key else text
        lines = [
            Content.assemble(badge, " ", Content(" · ").join(meta)),
            Content.styled("  " + body, "" if reason is None else "$foreground-muted"),
        ]
        if reason is not None:
            lines.append(Content.styled(f"  {reason}", "italic $foreground-muted"))
        waited = notes.flagged(entry)
        if waited is not None:
            lines.append(
                Content.styled(
                    f"  ⚑ unconfirmed for {waited} turns: confirm as fact (ctrl+y), keep "
                    "waiting (ctrl+w), or delete (del)",
                    "$warning",
                )
            )
        return Content("\n").join(lines)
