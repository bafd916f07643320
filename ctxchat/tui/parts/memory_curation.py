"""MemoryCuration: the memory panel's requests and "pin this message", through the memory book."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxchat.chat.memory_book import MemoryBook
from ctxchat.chat.session import ChatSession
from ctxchat.core.memory import MemoryEntry, MemoryKind, provenance, restored_note
from ctxchat.store import StoreError
from ctxchat.tui.parts.part import Part
from ctxchat.tui.views import MemoryDraft
from ctxchat.tui.widgets.memory_panel import MemoryPanel, PanelMessage


class MemoryCuration(Part):
    """Every change goes through the session's memory book, which keeps the session's cache
    true and tells the run's `ChangeLog` (the planner follows). A change the store refuses
    is one line."""

    def handle(self, session: ChatSession, request: PanelMessage) -> None:
        """Do what the memory panel asks (its other messages are the screen's)."""
        match request:
            case MemoryPanel.AddRequested():
                self.add(session)
            case MemoryPanel.EditRequested(entry_id=entry_id):
                entry = session.memory_book.get(entry_id)
                origin = provenance(entry.source).text
                self._editor(
                    session,
                    MemoryDraft.from_entry(entry),
                    "Edit memory entry",
                    entry.id,
                    note=f"memory #{entry.id}, {origin}.",
                )
            case MemoryPanel.DeleteRequested(entry_id=entry_id):
                self._delete(session, session.memory_book.get(entry_id))
            case MemoryPanel.PinToggled(entry_id=entry_id, pinned=pinned):
                self._update(session, entry_id, pinned=pinned)
            case MemoryPanel.KindCycled(entry_id=entry_id, kind=kind):
                self._update(session, entry_id, kind=kind)
            case MemoryPanel.ScopeToggled(entry_id=entry_id, make_global=make_global):
                # Global, then this conversation's project (when it is in one), then this
                # conversation only, then global again.
                project = session.project_id()
                entry = session.memory_book.get(entry_id)
                if make_global:
                    self._update(session, entry_id, conversation_id=None, project_id=None)
                elif entry.project_id is None and project is not None:
                    self._update(session, entry_id, project_id=project)
                elif session.conversation_id is not None:
                    self._update(session, entry_id, conversation_id=session.conversation_id)
            case MemoryPanel.Toggled(entry_id=entry_id, enabled=enabled):
                self._update(session, entry_id, enabled=enabled)
            case MemoryPanel.SwitchedHere(entry_id=entry_id, on=on):
                here = session.conversation_id
                if here is not None:
                    self._change(session, lambda book: book.switch(entry_id, here, on=on))
            case MemoryPanel.ImportanceChanged(entry_id=entry_id, importance=importance):
                self._update(session, entry_id, importance=importance)
            case MemoryPanel.NewVersionRequested(entry_id=entry_id):
                entry = session.memory_book.get(entry_id)
                self._editor(
                    session,
                    MemoryDraft.from_entry(entry),
                    f"New version of memory #{entry.id}",
                    None,
                    replaces=entry.id,
                    note=f"Saving keeps memory #{entry.id} as superseded by the new entry.",
                )
            case MemoryPanel.RestoreRequested(entry_id=entry_id):
                if self._change(session, lambda book: book.restore(entry_id)):
                    entry = session.memory_book.get(entry_id)
                    self.notify(restored_note(entry, session.mode), markup=False)
            case MemoryPanel.ConfirmRequested(entry_id=entry_id):
                self._update(session, entry_id, kind=MemoryKind.FACT)
            case MemoryPanel.KeepRequested(entry_id=entry_id):
                self._change(session, lambda book: book.keep_hypothesis(entry_id))

    def add(self, session: ChatSession) -> None:
        """Write a new entry."""
        self._editor(session, None, "New memory entry", None)

    def pin_message(self, session: ChatSession, message_id: int, text: str) -> None:
        """Pin a message (or the text selected in it) as an entry, after the editor."""
        draft = MemoryDraft(
            text=text, kind=MemoryKind.FACT, scope="conversation", importance=6, pinned=True
        )
        self._editor(session, draft, "Pin as a memory entry", None, source=f"message:{message_id}")

    def restore_latest(self, session: ChatSession, panel: MemoryPanel) -> None:
        """Restore the highlighted entry if superseded, else the one superseded last."""
        entry = panel.highlighted_entry
        if entry is None or not entry.superseded:
            superseded = [e for e in session.memory() if e.superseded]
            if not superseded:
                self.notify("No memory entry is superseded.", markup=False)
                return
            entry = max(superseded, key=lambda e: (e.superseded_at or 0.0, e.id))
        panel.post_message(MemoryPanel.RestoreRequested(panel, entry.id))

    def _change(self, session: ChatSession, change: Callable[[MemoryBook], object]) -> bool:
        try:
            change(session.memory_book)
        except StoreError as error:
            self.notify(str(error), severity="error", markup=False)
            return False
        return True

    def _update(self, session: ChatSession, entry_id: int, **changes: Any) -> None:
        self._change(session, lambda book: book.update(entry_id, **changes))

    def _delete(self, session: ChatSession, entry: MemoryEntry) -> None:
        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._change(session, lambda book: book.delete(entry.id))

        from ctxchat.tui.screens.confirm import ConfirmScreen

        self.app.push_screen(
            ConfirmScreen("Delete this memory entry?", "Delete", danger=True, detail=entry.text),
            decided,
        )

    def _editor(
        self,
        session: ChatSession,
        draft: MemoryDraft | None,
        heading: str,
        entry_id: int | None,
        source: str = "manual",
        *,
        replaces: int | None = None,
        note: str = "",
    ) -> None:
        def scope_of(result: MemoryDraft) -> int | None:
            return session.conversation_id if result.scope == "conversation" else None

        # The project an entry (or the one a new version replaces) belongs to: the editor
        # offers it as the scope, and it stays the project's while that is chosen.
        edited = replaces if replaces is not None else entry_id
        project = None if edited is None else session.memory_book.get(edited).project_id

        def project_of(result: MemoryDraft) -> int | None:
            return project if result.scope == "project" else None

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
                        conversation_id=scope_of(result),
                        source=source,
                        replaces=replaces,
                        project_id=project_of(result),
                    )
                else:
                    book.update(
                        entry_id,
                        kind=result.kind,
                        text=result.text,
                        key=result.key,
                        pinned=result.pinned,
                        importance=result.importance,
                        conversation_id=scope_of(result),
                        project_id=project_of(result),
                    )

            self._change(session, save)

        from ctxchat.tui.screens.memory_editor import MemoryEditor

        self.app.push_screen(
            MemoryEditor(
                draft,
                heading=heading,
                note=note,
                allow_conversation_scope=session.conversation_id is not None,
                project=None
                if project is None
                else session.store.projects.get_project(project).name,
            ),
            saved,
        )
