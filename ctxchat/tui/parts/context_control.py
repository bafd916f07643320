"""ContextControl: what the user leaves out of the requests or adds to them besides memory:
a turn left out, the task state, attached files, recall across conversations."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.message import Message

from ctxchat.chat.exclusions import change_exclusion
from ctxchat.chat.session import ChatSession
from ctxchat.store import StoredMessage, StoreError
from ctxchat.tui.parts.part import Part
from ctxchat.tui.semantic_catch_up import SemanticCatchUp


class ContextControl(Part):
    """Each change goes through the session (`change_exclusion`, its task book, its files),
    which stores it at once and tells the run's `ChangeLog` (the planner follows); a turn
    left out says so (`Excluded`: the turns to mark). A change refused is one line."""

    @dataclass
    class Excluded(Message):
        """`messages` of `session`'s conversation were left out, or included again."""

        session: ChatSession
        messages: tuple[StoredMessage, ...]

    def exclude(
        self, session: ChatSession, message_id: int, excluded: bool, *, pair: bool = False
    ) -> None:
        """Leave the message (with `pair`, the question and its answer) out of the requests
        (`excluded`) or include it again; a line tells what that did to the next request."""
        try:
            change = change_exclusion(session, message_id, excluded=excluded, pair=pair)
        except StoreError as error:
            self.notify(str(error), severity="warning", markup=False)
            return
        self.notify(change.describe(), markup=False)
        self.post_up(lambda: self.Excluded(session, change.messages))

    def edit_task(self, session: ChatSession) -> None:
        """Open the task dialog; each edit is stored as it is made."""
        from ctxchat.tui.screens.task_dialog import TaskDialog  # loaded when first opened

        if session.conversation_id is not None:
            self.app.push_screen(TaskDialog(session.task_book))

    def edit_files(self, session: ChatSession) -> None:
        """Open the files dialog: attach, detach, what each file sends."""
        from ctxchat.tui.screens.files_dialog import FilesDialog  # loaded when first opened

        if session.conversation_id is not None:
            self.app.push_screen(FilesDialog(session))

    def switch_recall_across(self) -> None:
        """Switch where recall looks besides the conversation (project → all → off) for the
        rest of the run, in every conversation opened from this one; a line says so."""
        session = self.session
        if session is None:
            return
        across = session.recaller.switch_across()
        self.notify(f"Recall across conversations: {across.value} ({across.describe()})")
        semantic, others = session.semantic, session.recaller.others()
        if semantic is not None and others is not None:
            # Recall by meaning searches those conversations once their vectors are loaded,
            # and what of them has none yet once it is embedded: the embedding worker's job.
            job = SemanticCatchUp(
                session, semantic, tell=self, still_shown=lambda: self.shows(session), others=others
            )
            self.run_worker(
                job.run, thread=True, group="others", exclusive=True, exit_on_error=False
            )

    @on(SemanticCatchUp.Ready)
    def _others_ready(self, event: SemanticCatchUp.Ready) -> None:
        event.stop()
        event.session.cache.plan_changed()  # recall is worked out again with those vectors
