"""ConversationDialogs: switch, rename, delete, export and import conversations."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from ctxchat.chat.deletion import ConversationDeletion
from ctxchat.chat.history_import import FileImport
from ctxchat.chat.session import ChatSession
from ctxchat.chat.workspace import Workspace
from ctxchat.store import StoreError, export_text
from ctxchat.store.importers.labels import origin_label
from ctxchat.tui.parts.history_import_job import HistoryImport
from ctxchat.tui.parts.part import Flow, Job
from ctxchat.tui.views import ConversationRowView, MessageHitView

if TYPE_CHECKING:
    from ctxchat.tui.screens.conversations import SwitcherResult
    from ctxchat.tui.screens.export_format import ExportChoice, ExportFormat
    from ctxchat.tui.screens.import_history import ImportChoice


class ConversationDialogs(Flow):
    """The switcher (ctrl+l) and the dialogs it leads to. What changes the conversation on
    screen is asked of the screen: `OpenRequested`, `NewRequested`, `Renamed`; `Deleted`
    says another conversation went (the memory it kept may reach the one on screen). Its
    job is an import (`start_import`)."""

    after_cancel = " Nothing of it was imported."

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
    class Imported(Message):
        """An import ended: what came."""

        done: FileImport

    @dataclass
    class ImportFailed(Message):
        """An import failed, nothing of it kept: why, in a sentence."""

        text: str

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self.importing: HistoryImport | None = None
        """The last import started (its progress), if any."""

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
            for c in store.conversations.list_conversations()
            if only is None or c.id in only
        ]

        def chosen(result: SwitcherResult | None) -> None:
            if result is not None:
                self._chosen(session, result)

        from ctxchat.tui.screens.conversations import ConversationSwitcher

        def find_messages(query: str) -> dict[int, MessageHitView]:
            found = store.search.find_conversations(query)
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
            session.writer.rename_conversation(target, result.title)
            self.post_up(lambda: self.Renamed(target))
            self.notify("Renamed.", markup=False)
        elif result.action == "delete" and target is not None:
            deletion = ConversationDeletion.of(session.store, target)
            session.delete_conversation(target, with_memory=result.with_memory)
            self.notify(deletion.done(with_memory=result.with_memory), markup=False)
            if target == session.conversation_id:
                latest = (
                    session.store.conversations.latest_conversation()
                    or session.create_conversation()
                )
                self.post_up(lambda: self.OpenRequested(latest.id))
        elif result.action == "export" and target is not None:
            self.ask_export(session, target)
        elif result.action == "import":
            self.ask_import(session)

    def rename(self) -> None:
        """Rename the conversation on screen."""
        session = self.session
        if session is None or session.conversation_id is None:
            return
        conversation = session.store.conversations.get_conversation(session.stored_id)

        def renamed(title: str | None) -> None:
            if title:
                session.writer.rename_conversation(conversation.id, title)
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

        from ctxchat.tui.screens.project_dialog import ProjectDialog

        self.app.push_screen(
            ProjectDialog(session.store.projects.projects(), session.project_id()), chosen
        )

    def export_shown(self, export_format: str) -> None:
        """Export the conversation on screen (as Markdown, or "json")."""
        session = self.session
        if session is None or session.conversation_id is None:
            return
        if export_format == "json":
            self.ask_export(session, session.stored_id, "json")
        else:
            self.ask_export(session, session.stored_id, "markdown")

    def ask_export(
        self, session: ChatSession, conversation_id: int, export_format: ExportFormat = "markdown"
    ) -> None:
        """Ask the format and the folder (the data dir's `exports` unless the user types
        another), then export."""
        title = session.store.conversations.get_conversation(conversation_id).name

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
        data = store.transfer.export_conversation(conversation_id)
        title = store.conversations.get_conversation(conversation_id).name
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
                self.start_import(session, choice)

        self.app.push_screen(ImportHistoryScreen(sources), chosen)

    def start_import(self, session: ChatSession, choice: ImportChoice) -> None:
        """Import `choice`'s file as this part's job: on the jobs line with how far it got,
        cancelled by f9 with nothing of it kept; what came (`Imported`) or why nothing did
        (`ImportFailed`) is posted when it ends."""
        job = HistoryImport(choice.path, choice.source, session.store.path, session.counter)
        self.importing = job

        def done(imported: FileImport) -> None:
            self.post_message(self.Imported(imported))

        def failed(text: str) -> None:
            self.post_message(self.ImportFailed(text))

        async def work() -> None:
            try:
                await asyncio.to_thread(job.run, done, failed)
            finally:  # cancelled (f9, the app ending): the thread stops at its next conversation
                job.cancel()

        self.run_job(f"Importing {choice.path.name}", work, group="import", session=session)

    def progress(self, job: Job) -> str | None:
        importing = self.importing
        return None if importing is None else importing.progress()

    def on_conversation_dialogs_imported(self, message: Imported) -> None:
        done = message.done
        self.notify(done.summary(), markup=False)
        if done.conversation_ids:
            self.switch(only=done.conversation_ids)

    def on_conversation_dialogs_import_failed(self, message: ImportFailed) -> None:
        self.notify(message.text, severity="error", markup=False)
