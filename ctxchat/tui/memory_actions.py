"""Curating memory from the keyboard: the memory panel's requests and "pin this message"."""

from __future__ import annotations

from typing import Any

from textual import on

from ctxchat.core.memory import MemoryKind
from ctxchat.store import StoreError
from ctxchat.tui.base import AppBase
from ctxchat.tui.views import MemoryDraft
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.memory_panel import MemoryPanel


class MemoryActions(AppBase):
    """Every change goes to the store, then the session re-reads memory and re-plans."""

    def _memory_changed(self) -> None:
        self.session.forget_memory()
        self.refresh_plan()

    def _update(self, entry_id: int, **changes: Any) -> None:
        try:
            self.session.store.update_memory(entry_id, **changes)
        except StoreError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        self._memory_changed()

    def _scope_id(self, draft: MemoryDraft) -> int | None:
        return self.session.conversation_id if draft.scope == "conversation" else None

    def _editor(
        self, draft: MemoryDraft | None, heading: str, entry_id: int | None, source: str = "manual"
    ) -> None:
        def saved(result: MemoryDraft | None) -> None:
            if result is None:
                return
            store = self.session.store
            try:
                if entry_id is None:
                    store.add_memory(
                        result.kind,
                        result.text,
                        key=result.key,
                        pinned=result.pinned,
                        importance=result.importance,
                        conversation_id=self._scope_id(result),
                        source=source,
                    )
                else:
                    store.update_memory(
                        entry_id,
                        kind=result.kind,
                        text=result.text,
                        key=result.key,
                        pinned=result.pinned,
                        importance=result.importance,
                        conversation_id=self._scope_id(result),
                    )
            except StoreError as error:
                self.notify(str(error), severity="error", markup=False)
                return
            self._memory_changed()

        from ctxchat.tui.screens.memory_editor import MemoryEditor

        self.push_screen(
            MemoryEditor(
                draft,
                heading=heading,
                allow_conversation_scope=self.session.conversation_id is not None,
            ),
            saved,
        )

    def action_add_memory(self) -> None:
        self._editor(None, "New memory entry", None)

    def action_focus_memory(self) -> None:
        panel = self.query_one("#memory", MemoryPanel)
        # The panel itself cannot take focus; its list can, and the panel's keys work from
        # it. Never from under a dialog: the key would steer a list the user cannot see.
        if panel.screen is self.screen:
            panel.option_list.focus()

    @on(MemoryPanel.AddRequested)
    def _add(self) -> None:
        self.action_add_memory()

    @on(MemoryPanel.EditRequested)
    def _edit_entry(self, event: MemoryPanel.EditRequested) -> None:
        entry = self.session.store.get_memory(event.entry_id)
        self._editor(MemoryDraft.from_entry(entry), "Edit memory entry", entry.id)

    @on(MemoryPanel.DeleteRequested)
    def _delete(self, event: MemoryPanel.DeleteRequested) -> None:
        entry = self.session.store.get_memory(event.entry_id)

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self.session.store.delete_memory(entry.id)
                self._memory_changed()

        from ctxchat.tui.screens.confirm import ConfirmScreen

        self.push_screen(
            ConfirmScreen("Delete this memory entry?", "Delete", danger=True, detail=entry.text),
            decided,
        )

    @on(MemoryPanel.PinToggled)
    def _pin(self, event: MemoryPanel.PinToggled) -> None:
        self._update(event.entry_id, pinned=event.pinned)

    @on(MemoryPanel.KindCycled)
    def _kind(self, event: MemoryPanel.KindCycled) -> None:
        self._update(event.entry_id, kind=event.kind)

    @on(MemoryPanel.ScopeToggled)
    def _scope(self, event: MemoryPanel.ScopeToggled) -> None:
        if not event.make_global and self.session.conversation_id is None:
            return
        self._update(
            event.entry_id,
            conversation_id=None if event.make_global else self.session.conversation_id,
        )

    @on(MemoryPanel.Toggled)
    def _toggle(self, event: MemoryPanel.Toggled) -> None:
        self._update(event.entry_id, enabled=event.enabled)

    @on(MemoryPanel.ImportanceChanged)
    def _importance(self, event: MemoryPanel.ImportanceChanged) -> None:
        self._update(event.entry_id, importance=event.importance)

    @on(ConversationView.PinRequested)
    def _pin_message(self, event: ConversationView.PinRequested) -> None:
        draft = MemoryDraft(
            text=event.text, kind=MemoryKind.FACT, scope="conversation", importance=6, pinned=True
        )
        self._editor(draft, "Pin as a memory entry", None, source=f"message:{event.message_id}")
