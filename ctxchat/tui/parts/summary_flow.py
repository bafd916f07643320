"""SummaryFlow: folding turns into the summary (now, or after a turn) and its versions (F3)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message
from textual.notifications import SeverityLevel

from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import Summarizer, SummaryFailed, edit_summary, roll_back
from ctxchat.store import SummaryVersion
from ctxchat.tui.parts.part import Flow
from ctxchat.tui.views import MessageView, SummaryVersionView

if TYPE_CHECKING:
    from ctxchat.tui.screens.summary_versions import SummaryAction

SummaryJob = Callable[[Summarizer], Awaitable[SummaryVersion]]


def can_ask_model(part: Flow, session: ChatSession | None) -> bool:
    """Whether `session` has a conversation and a model to ask; else the user is told why."""
    if session is None or session.conversation_id is None:
        part.notify("Open a conversation first.", markup=False)
        return False
    if session.backend is None:
        part.notify("No model server is configured; press F4.", severity="warning", markup=False)
        return False
    return True


class SummaryFlow(Flow):
    """Summaries run in the background (one at a time); the chat stays usable meanwhile.
    Every change to a conversation's summary says so with `Changed`."""

    @dataclass
    class Changed(Message):
        """`session`'s summary changed (or may have): its plan is drawn again."""

        session: ChatSession

    def summarize(self) -> None:
        """Fold older turns of the conversation on screen into its summary now, after
        showing them."""
        session = self.session
        if not can_ask_model(self, session):
            return
        assert session is not None
        fold = session.pending_fold(manual=True)
        if fold is None:
            self.notify(
                f"Nothing to summarize: the last {session.settings.context.min_recent} messages "
                "always stay in working memory.",
                markup=False,
            )
            return
        versions = session.store.summaries(session.conversation)
        next_version = (max(v.version for v in versions) + 1) if versions else 1
        previews = [
            MessageView(m.id, m.role, m.content, m.status, tokens=m.tokens) for m in fold.messages
        ]

        def confirmed(go: bool | None) -> None:
            if go:
                self._run(
                    session,
                    lambda summarizer: summarizer.fold(fold),
                    lambda version: f"Summary v{version.version} is in force.",
                    started=f"Summarizing {len(fold.messages)} messages…",
                )

        from ctxchat.tui.screens.summarize_preview import SummarizePreview

        self.app.push_screen(
            SummarizePreview(
                previews, next_version=next_version, strategy=session.settings.summary.strategy
            ),
            confirmed,
        )

    def fold_pending(self, session: ChatSession) -> None:
        """Fold what left working memory, in the background; chatting goes on meanwhile."""
        if session.backend is None:
            return
        fold = session.pending_fold()
        if fold is not None:
            self._run(
                session,
                lambda summarizer: summarizer.fold(fold),
                lambda version: (
                    f"Folded {len(fold.messages)} messages into summary v{version.version}."
                ),
                failure="warning",
            )

    def show_versions(self) -> None:
        """The versions of the summary of the conversation on screen: roll back, edit,
        rebuild."""
        session = self.session
        if session is None or session.conversation_id is None:
            self.notify("Open a conversation first.", markup=False)
            return
        active = session.active_summary()
        views = [
            SummaryVersionView(
                id=v.id,
                version=v.version,
                text=v.text,
                first_message_id=v.first_message_id,
                last_message_id=v.last_message_id,
                strategy=v.strategy,
                model=v.model or "",
                tokens=v.tokens,
                edited=v.edited,
                created_at=v.created_at,
                active=active is not None and v.id == active.id,
            )
            for v in session.store.summaries(session.conversation)
        ]

        def chosen(action: SummaryAction | None) -> None:
            if action is not None:
                self._chosen(session, action)

        from ctxchat.tui.screens.summary_versions import SummaryScreen

        self.app.push_screen(SummaryScreen(views), chosen)

    def _chosen(self, session: ChatSession, action: SummaryAction) -> None:
        try:
            if action.action == "activate":
                roll_back(session, action.version_id)
                self.notify("Rolled back; that version is in force now.", markup=False)
            elif action.action == "edit" and action.text is not None:
                if action.version_id is not None:
                    roll_back(session, action.version_id)
                version = edit_summary(session, action.text)
                self.notify(f"Saved your edit as summary v{version.version}.", markup=False)
            elif action.action == "rebuild":
                if can_ask_model(self, session):
                    self._run(
                        session,
                        lambda summarizer: summarizer.rebuild(),
                        lambda version: f"Rebuilt as summary v{version.version}.",
                        started="Rebuilding the summary from the original messages…",
                    )
            elif action.action == "summarize":
                self.summarize()
        except SummaryFailed as error:
            self.notify(str(error), severity="error", markup=False)
        self.post_up(lambda: self.Changed(session))

    def _run(
        self,
        session: ChatSession,
        job: SummaryJob,
        done: Callable[[SummaryVersion], str],
        *,
        started: str | None = None,
        failure: SeverityLevel = "error",
    ) -> None:
        """Run `job` with the session's summarizer; tell the user how it went."""
        what = started or "Folding older turns into the summary…"
        self.run_job(
            what, lambda: self._summarize(session, job, done, started, failure), group="summary"
        )

    async def _summarize(
        self,
        session: ChatSession,
        job: SummaryJob,
        done: Callable[[SummaryVersion], str],
        started: str | None,
        failure: SeverityLevel,
    ) -> None:
        if started is not None:
            self.notify(started, markup=False)
        try:
            version = await job(Summarizer.for_session(session))
        except SummaryFailed as error:
            self.notify(
                f"{error} The previous summary stays in force.", severity=failure, markup=False
            )
            return
        self.notify(done(version), markup=False)
        self.post_up(lambda: self.Changed(session))
