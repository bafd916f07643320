"""Curating memory from the keyboard: the memory panel's requests and "pin this message"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on, work

from ctxchat.chat.memory_book import MemoryBook
from ctxchat.chat.usage import UsageView
from ctxchat.core.memory import MemoryKind, provenance, restored_note
from ctxchat.core.plan import ContextPlan
from ctxchat.store import NotFound, StoreError
from ctxchat.tui.base import ConversationBase
from ctxchat.tui.on_screen import OnScreen, UsageKey
from ctxchat.tui.reveal import reveal_message
from ctxchat.tui.views import MemoryDraft
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.layer_panel import ContextPanels
from ctxchat.tui.widgets.memory_panel import EntryNotes, MemoryPanel


class MemoryActions(ConversationBase):
    """Every change goes through the session's memory book (which keeps its cache true),
    then the plan is drawn again."""

    def show_memory(self, plan: ContextPlan) -> None:
        on_screen = self.on_screen
        session = on_screen.session
        self._draw_memory(on_screen, plan)
        # What the recent replies most likely used (an estimate), worked out in a thread
        # once per new reply or memory change, for the conversation on screen.
        memory = tuple(entry.ref for entry in session.memory())
        semantic = session.semantic is not None and session.semantic.ready
        key = (on_screen.usage_tracker.newest_reply(session), memory, semantic)
        if key != on_screen.usage_key and key != on_screen.usage_wanted:
            on_screen.usage_wanted = key
            self._estimate_usage(on_screen, key)

    def _draw_memory(self, on_screen: OnScreen, plan: ContextPlan | None) -> None:
        session, usage = on_screen.session, on_screen.usage
        notes = EntryNotes(
            turns_now=session.user_turns(),
            hypothesis_turns=session.settings.memory.hypothesis_turns,
            used=usage.used,
            idle=usage.idle,
            replies=usage.replies,
        )
        self.query_one("#memory", MemoryPanel).update_entries(session.memory(), plan, notes)
        self.query_one("#context", ContextPanels).mark_used(usage.used)

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False)
    def _estimate_usage(self, on_screen: OnScreen, key: UsageKey) -> None:
        session = on_screen.session
        semantic = session.semantic
        meaning = semantic.closeness if semantic is not None and semantic.ready else None
        view = on_screen.usage_tracker.view(session, meaning)
        self.app.call_from_thread(self._usage_ready, on_screen, key, view)

    def _usage_ready(self, on_screen: OnScreen, key: UsageKey, view: UsageView) -> None:
        on_screen.usage, on_screen.usage_key = view, key
        if self.has_session and on_screen is self.on_screen:  # else: left, and nothing holds it
            self._draw_memory(on_screen, on_screen.plan)

    def _change_memory(self, change: Callable[[MemoryBook], object]) -> bool:
        """Make one change through the session's memory book (which keeps the session's
        cache true), then draw the plan again. A change the store refuses is one line."""
        try:
            change(self.session.memory_book)
        except StoreError as error:
            self.notify(str(error), severity="error", markup=False)
            return False
        self.refresh_plan()
        return True

    def _update(self, entry_id: int, **changes: Any) -> None:
        self._change_memory(lambda book: book.update(entry_id, **changes))

    def _scope_id(self, draft: MemoryDraft) -> int | None:
        return self.session.conversation_id if draft.scope == "conversation" else None

    def _editor(
        self,
        draft: MemoryDraft | None,
        heading: str,
        entry_id: int | None,
        source: str = "manual",
        *,
        replaces: int | None = None,
        note: str = "",
    ) -> None:
        def saved(result: MemoryDraft | None) -> None:
            if result is None:
                return

            def save(book: MemoryBook) -> None:
                if entry_id is None:
                    book.add(
                        result.kind,
                        result.text,
                        key=result.key,
                        pinned=result.pinned,
                        importance=result.importance,
                        conversation_id=self._scope_id(result),
                        source=source,
                        replaces=replaces,
                    )
                else:
                    book.update(
                        entry_id,
                        kind=result.kind,
                        text=result.text,
                        key=result.key,
                        pinned=result.pinned,
                        importance=result.importance,
                        conversation_id=self._scope_id(result),
                    )

            self._change_memory(save)

        from ctxchat.tui.screens.memory_editor import MemoryEditor

        self.app.push_screen(
            MemoryEditor(
                draft,
                heading=heading,
                note=note,
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
        if self.app.screen is self:
            panel.option_list.focus()

    @on(MemoryPanel.AddRequested)
    def _add(self) -> None:
        self.action_add_memory()

    @on(MemoryPanel.EditRequested)
    def _edit_entry(self, event: MemoryPanel.EditRequested) -> None:
        entry = self.session.memory_book.get(event.entry_id)
        origin = provenance(entry.source).text
        self._editor(
            MemoryDraft.from_entry(entry),
            "Edit memory entry",
            entry.id,
            note=f"memory #{entry.id}, {origin}.",
        )

    @on(MemoryPanel.DeleteRequested)
    def _delete(self, event: MemoryPanel.DeleteRequested) -> None:
        entry = self.session.memory_book.get(event.entry_id)

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._change_memory(lambda book: book.delete(entry.id))

        from ctxchat.tui.screens.confirm import ConfirmScreen

        self.app.push_screen(
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

    @on(MemoryPanel.NewVersionRequested)
    def _new_version(self, event: MemoryPanel.NewVersionRequested) -> None:
        entry = self.session.memory_book.get(event.entry_id)
        self._editor(
            MemoryDraft.from_entry(entry),
            f"New version of memory #{entry.id}",
            None,
            replaces=entry.id,
            note=f"Saving keeps memory #{entry.id} as superseded by the new entry.",
        )

    @on(MemoryPanel.RestoreRequested)
    def _restore(self, event: MemoryPanel.RestoreRequested) -> None:
        if self._change_memory(lambda book: book.restore(event.entry_id)):
            entry = self.session.memory_book.get(event.entry_id)
            self.notify(restored_note(entry, self.session.mode), markup=False)

    def action_restore_memory(self) -> None:
        """Restore the highlighted entry if superseded, else the one superseded last."""
        panel = self.query_one("#memory", MemoryPanel)
        entry = panel.highlighted_entry
        if entry is None or not entry.superseded:
            superseded = [e for e in self.session.memory() if e.superseded]
            if not superseded:
                self.notify("No memory entry is superseded.", markup=False)
                return
            entry = max(superseded, key=lambda e: (e.superseded_at or 0.0, e.id))
        panel.post_message(MemoryPanel.RestoreRequested(panel, entry.id))

    def action_order_memory(self) -> None:
        self.query_one("#memory", MemoryPanel).action_order()

    @on(MemoryPanel.ConfirmRequested)
    def _confirm(self, event: MemoryPanel.ConfirmRequested) -> None:
        self._update(event.entry_id, kind=MemoryKind.FACT)

    @on(MemoryPanel.KeepRequested)
    def _keep(self, event: MemoryPanel.KeepRequested) -> None:
        self._change_memory(lambda book: book.keep_hypothesis(event.entry_id))

    @on(MemoryPanel.SourceRequested)
    async def _go_to_source(self, event: MemoryPanel.SourceRequested) -> None:
        """Show the message an entry came from, mounting it (with the turns around it) when
        it is far up."""
        session = self.session
        try:
            message = session.store.get_message(event.message_id)
        except NotFound:
            self.notify(f"Message #{event.message_id} no longer exists.", markup=False)
            return
        if message.conversation_id != session.conversation_id:
            title = session.store.get_conversation(message.conversation_id).title
            self.notify(
                f"Message #{message.id} is in another conversation: {title or message.conversation_id}.",
                markup=False,
            )
            return
        view = self.query_one(ConversationView)
        if not await reveal_message(session, view, message.id):
            self.notify(f"Message #{message.id} is not shown in this conversation.", markup=False)
            return
        view.focus()
