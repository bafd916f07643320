"""ConversationDialogs: switch, rename, delete, export and import conversations."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message

from ctxchat.chat.deletion import ConversationDeletion
from ctxchat.chat.history_import import FileImport, import_file
from ctxchat.chat.session import ChatSession
from ctxchat.chat.workspace import Workspace
from ctxchat.store import Store, StoreError, export_text
from ctxchat.store.importers.labels import origin_label
from ctxchat.tui.parts.part import Part
from ctxchat.tui.views import ConversationRowView, MessageHitView

if TYPE_CHECKING:
    from ctxchat.tui.screens.conversations import SwitcherResult
    from ctxchat.tui.screens.export_format import ExportChoice, ExportFormat
    from ctxchat.tui.screens.import_history import ImportChoice


class ConversationDialogs(Part):
    """The switcher (ctrl+l) and the dialogs it leads to. What changes the conversation on
    screen is asked of the screen: `OpenRequested`, `NewRequested`, `Renamed`; `Deleted`
    says another conversation went (the memory it kept may reach the one on screen)."""

    @dataclass
    class OpenRequested(Message):
        """Open `conversation_id`, and show `message_id` in it if one is given."""

        conversation_id: int
        message_id: int | None = None

    @dataclass
    class NewRequested(Message):
        """Start a new conversation."""

    @dataclass
    class Renamed(Message):
        """A conversation's title changed."""

        conversation_id: int

    @dataclass
    class Deleted(Message):
        """A conversation other than `session`'s (the one on screen) was deleted: the
        memory entries it kept are global now."""

        session: ChatSession

    @dataclass
    class MovedToProject(Message):
        """`session`'s conversation went into another project (or none): its memory changed."""

        session: ChatSession

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace

    def switch(self, only: Collection[int] | None = None) -> None:
        """Search and switch conversations; rename, delete, export or import them (only the
        conversations `only` names are listed, when given)."""
        session = self.session
        if session is None:
            return
        store = session.store
        rows = [
            ConversationRowView(
                c.id,
                c.name,
                c.updated_at,
                c.message_count,
                c.tokens,
                origin_label(c.origin),
                c.project or "",
            )
            for c in store.list_conversations()
            if only is None or c.id in only
        ]

        def chosen(result: SwitcherResult | None) -> None:
            if result is not None:
                self._chosen(session, result)

        from ctxchat.tui.screens.conversations import ConversationSwitcher

        def find_messages(query: str) -> dict[int, MessageHitView]:
            found = store.find_conversations(query)
            return {c: MessageHitView(h.message_id, h.content, h.count) for c, h in found.items()}

        switcher = ConversationSwitcher(
            rows,
            current_id=session.conversation_id,
            find_messages=find_messages,
            deletion_of=lambda conversation_id: ConversationDeletion.of(store, conversation_id),
        )
        self.app.push_screen(switcher, chosen)

    def _chosen(self, session: ChatSession, result: SwitcherResult) -> None:
        target = result.conversation_id
        if result.action == "new":
            self.post_up(lambda: self.NewRequested())
        elif result.action == "switch" and target is not None:
            self.post_up(lambda: self.OpenRequested(target, result.message_id))
        elif result.action == "rename" and target is not None and result.title:
            session.rename_conversation(target, result.title)
            self.post_up(lambda: self.Renamed(target))
            self.notify("Renamed.", markup=False)
        elif result.action == "delete" and target is not None:
            deletion = ConversationDeletion.of(session.store, target)
            session.delete_conversation(target, with_memory=result.with_memory)
            self.notify(deletion.done(with_memory=result.with_memory), markup=False)
            if target == session.conversation_id:
                latest = session.store.latest_conversation() or session.create_conversation()
                self.post_up(lambda: self.OpenRequested(latest.id))
            else:
                self.post_up(lambda: self.Deleted(session))
        elif result.action == "export" and target is not None:
            self.ask_export(session, target)
        elif result.action == "import":
            self.ask_import(session)

    def rename(self) -> None:
        """Rename the conversation on screen."""
        session = self.session
        if session is None or session.conversation_id is None:
            return
        conversation = session.store.get_conversation(session.conversation)

        def renamed(title: str | None) -> None:
            if title:
                session.rename_conversation(conversation.id, title)
                self.post_up(lambda: self.Renamed(conversation.id))

        from ctxchat.tui.screens.rename import RenameScreen

        self.app.push_screen(RenameScreen(conversation.title), renamed)

    def move_to_project(self) -> None:
        """Put the conversation on screen in a project, a new one, or none."""
        session = self.session
        if session is None or session.conversation_id is None:
            self.notify(
                "Send a first message: a new conversation is in no project yet.", markup=False
            )
            return

        def chosen(choice: int | str | bool | None) -> None:
            if choice is False:
                return
            try:
                session.move_to_project(None if isinstance(choice, bool) else choice)
            except StoreError as error:
                self.notify(str(error), severity="error", markup=False)
                return
            self.post_up(lambda: self.MovedToProject(session))

        from ctxchat.tui.screens.project_dialog import ProjectDialog

        self.app.push_screen(ProjectDialog(session.store.projects(), session.project_id()), chosen)

    def export_shown(self, export_format: str) -> None:
        """Export the conversation on screen (as Markdown, or "json")."""
        session = self.session
        if session is None or session.conversation_id is None:
            return
        if export_format == "json":
            self.ask_export(session, session.conversation, "json")
        else:
            self.ask_export(session, session.conversation, "markdown")

    def ask_export(
        self, session: ChatSession, conversation_id: int, export_format: ExportFormat = "markdown"
    ) -> None:
        """Ask the format and the folder (the data dir's `exports` unless the user types
        another), then export."""
        title = session.store.get_conversation(conversation_id).name

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self.export(session, conversation_id, choice.export_format, choice.folder)

        from ctxchat.tui.screens.export_format import ExportFormatScreen

        folder = self.workspace.locations.exports_dir
        self.app.push_screen(ExportFormatScreen(title, folder, export_format), chosen)

    def export(
        self, session: ChatSession, conversation_id: int, export_format: str, folder: Path
    ) -> Path | None:
        """Write the conversation into `folder`; say the full path (or why it failed)."""
        store = session.store
        data = store.export_conversation(conversation_id)
        title = store.get_conversation(conversation_id).name
        stem = re.sub(r"[^\w.-]+", "-", title).strip("-")[:60] or "conversation"
        suffix = "md" if export_format == "markdown" else "json"
        path = folder.resolve() / f"{stem}-{conversation_id}.{suffix}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(export_text(data, markdown=suffix == "md"), encoding="utf-8")
        except OSError as error:
            reason = error.strerror or str(error)
            self.notify(f"Could not export to {path}: {reason}.", severity="error", markup=False)
            return None
        self.notify(f"Exported to {path}", markup=False)
        return path

    # --- importing another tool's history ------------------------------------------------

    def ask_import(self, session: ChatSession) -> None:
        """Ask for the file and import it, then list the conversations that came."""
        from ctxchat.store.importers import SOURCES
        from ctxchat.tui.screens.import_history import ImportHistoryScreen

        sources = [(source.file, name) for name, source in SOURCES.items()]

        def chosen(choice: ImportChoice | None) -> None:
            if choice is not None:
                self.notify(f"Importing {choice.path.name}…", markup=False, timeout=3)
                self._import_history(session, choice)

        self.app.push_screen(ImportHistoryScreen(sources), chosen)

    @work(thread=True, exclusive=True, group="import", exit_on_error=False)
    def _import_history(self, session: ChatSession, choice: ImportChoice) -> None:
        """Import in a thread, on a connection of its own: the app stays responsive while
        thousands of conversations are stored."""
        try:
            with Store.open(session.store.path) as store:
                done = import_file(
                    store, choice.path, counter=session.counter, source=choice.source
                )
        except StoreError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error", markup=False)
            return
        except OSError as error:
            reason = error.strerror or str(error)
            self.app.call_from_thread(
                self.notify, f"Cannot read {choice.path}: {reason}.", severity="error", markup=False
            )
            return
        self.app.call_from_thread(self._imported, done)

    def _imported(self, done: FileImport) -> None:
        self.notify(done.summary(), markup=False)
        if done.conversation_ids:
            self.switch(only=done.conversation_ids)
