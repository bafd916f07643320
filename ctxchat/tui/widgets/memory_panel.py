"""The memory panel: curated entries with kind, pin, scope, importance and their place in the plan."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.core.plan import ContextPlan
from ctxchat.tui.text import clean, tokens
from ctxchat.tui.themes import kind_variable

__all__ = ["EntryStatus", "MemoryPanel", "entry_status", "next_kind"]

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
        return EntryStatus(False, "excluded by you")
    return EntryStatus(False, "not in this conversation's request")


def _option_id(entry_id: int) -> str:
    return f"memory-{entry_id}"


@dataclass
class _PanelMessage(Message):
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
        & > .memory-panel--header { padding: 0 1; text-style: bold; }
        & > OptionList { height: auto; max-height: 100%; border: none; padding: 0; }
        /* Empty: the header line only; the list stays focusable (F6, then `a` adds). */
        &.-empty > OptionList { height: 0; }
        & > OptionList:focus { border: none; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "leave",
            "Back",
            show=False,
            id="memory.back",
            tooltip="Go back to the composer",
        ),
        Binding("a", "add", "Add", id="memory.add", tooltip="Add a memory entry"),
        Binding("e", "edit", "Edit", id="memory.edit", tooltip="Edit the highlighted entry"),
        Binding("d,delete", "delete", "Delete", id="memory.delete", tooltip="Delete the entry"),
        Binding("p", "pin", "Pin", id="memory.pin", tooltip="Pin or unpin the entry"),
        Binding("k", "kind", "Kind", id="memory.kind", tooltip="Change the entry's kind"),
        Binding(
            "s",
            "scope",
            "Scope",
            id="memory.scope",
            tooltip="Make the entry global or for this conversation only",
        ),
        Binding(
            "x,space",
            "include",
            "In/out",
            id="memory.toggle",
            tooltip="Include the entry in the context or exclude it",
        ),
        Binding(
            "plus,equals_sign",
            "importance(1)",
            "Importance +",
            key_display="+",
            id="memory.importance_up",
            tooltip="Raise the entry's importance",
        ),
        Binding(
            "minus",
            "importance(-1)",
            "Importance −",
            key_display="-",
            id="memory.importance_down",
            tooltip="Lower the entry's importance",
        ),
    ]

    @dataclass
    class Left(_PanelMessage):
        """The user pressed Esc here: back to the composer."""

    @dataclass
    class AddRequested(_PanelMessage):
        """The user wants a new entry."""

    @dataclass
    class EditRequested(_PanelMessage):
        """The user wants to edit an entry."""

        entry_id: int

    @dataclass
    class DeleteRequested(_PanelMessage):
        """The user wants to delete an entry (the app may ask first)."""

        entry_id: int

    @dataclass
    class PinToggled(_PanelMessage):
        """Pin or unpin: `pinned` is the state asked for."""

        entry_id: int
        pinned: bool

    @dataclass
    class KindCycled(_PanelMessage):
        """Change the kind: `kind` is the one asked for (the next in order)."""

        entry_id: int
        kind: MemoryKind

    @dataclass
    class ScopeToggled(_PanelMessage):
        """Change the scope: `make_global` True for every conversation, False for this one."""

        entry_id: int
        make_global: bool

    @dataclass
    class Toggled(_PanelMessage):
        """Include or exclude: `enabled` is the state asked for."""

        entry_id: int
        enabled: bool

    @dataclass
    class ImportanceChanged(_PanelMessage):
        """Importance up or down by `delta`; `importance` is the value asked for (1-10)."""

        entry_id: int
        delta: int
        importance: int

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
        self._shown: object = None  # what the list was last built from
        self._header = Static(Content("memory"), classes="memory-panel--header")
        self._list = OptionList(id="memory-list")
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

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._list

    def on_mount(self) -> None:
        if self._initial is not None:
            self.update_entries(*self._initial)

    def update_entries(self, entries: Sequence[MemoryEntry], plan: ContextPlan | None) -> None:
        """Show `entries` (in the order given) and where each stands in `plan`."""
        self._initial = None
        # Typing replans on every keystroke; the memory layer rarely changes with it, and
        # rebuilding a long list each time costs more than the rest of the context side.
        shown = (tuple(entries), None if plan is None else (plan.mode, plan.layer(Layer.MEMORY)))
        if shown == self._shown:
            return
        self._shown = shown
        kept = self.highlighted_entry
        index = self._list.highlighted
        self._entries = {entry.id: entry for entry in entries}
        self._header.update(self._header_content(entries, plan))
        self.set_class(not entries, "-empty")
        self._list.clear_options()
        self._list.add_options(
            Option(self._prompt(entry, entry_status(entry, plan)), id=_option_id(entry.id))
            for entry in entries
        )
        if not entries:
            return
        if kept is not None and kept.id in self._entries:
            self._list.highlighted = self._list.get_option_index(_option_id(kept.id))
        else:
            self._list.highlighted = min(index or 0, len(entries) - 1)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "add":
            return True
        if action in ("edit", "delete", "pin", "kind", "scope", "include", "importance"):
            # Shown but greyed out in the footer while no entry is highlighted.
            return True if self.highlighted_entry is not None else None
        return True

    @on(OptionList.OptionSelected, "#memory-list")
    def _edit_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_edit()

    @on(OptionList.OptionHighlighted, "#memory-list")
    def _refresh_bindings(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_bindings()

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
    def _header_content(entries: Sequence[MemoryEntry], plan: ContextPlan | None) -> Content:
        parts = [Content("memory"), Content(f"{len(entries)} entries")]
        if not entries:
            parts.append(Content.styled("F6 then a adds one", "not bold dim"))
            return Content(" · ").join(parts)
        if plan is not None:
            layer = plan.layer(Layer.MEMORY)
            parts.append(Content(f"{len(layer.items)} in context ({tokens(layer.tokens)} tokens)"))
            parts.append(Content.styled(f"mode {clean(plan.mode)}", "not bold $accent"))
        return Content(" · ").join(parts)

    @staticmethod
    def _prompt(entry: MemoryEntry, status: EntryStatus | None) -> Content:
        kind = entry.kind.value
        badge = Content.styled(
            f" {kind:<{_KIND_WIDTH}} ", f"bold $background on {kind_variable(kind)}"
        )
        meta: list[Content] = []
        if entry.pinned:
            meta.append(Content.styled("● pinned", "bold $accent"))
        meta.append(Content("global" if entry.conversation_id is None else "this conversation"))
        meta.append(Content(f"importance {entry.importance}"))
        reason = None
        if status is not None and status.included:
            meta.append(Content.styled(clean(status.text), "$success"))
        elif status is not None:
            reason = clean(status.text)
        elif not entry.enabled:
            reason = "excluded by you"
        text = " ".join(clean(entry.text).split())
        body = f"{clean(entry.key)}: {text}" if entry.key else text
        lines = [
            Content.assemble(badge, " ", Content(" · ").join(meta)),
            Content.styled("  " + body, "" if reason is None else "$foreground-muted"),
        ]
        if reason is not None:
            lines.append(Content.styled(f"  {reason}", "italic $foreground-muted"))
        return Content("\n").join(lines)
