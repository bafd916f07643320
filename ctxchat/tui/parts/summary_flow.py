"""SummaryFlow: folding turns into the summary (now, or after a turn) and its versions (F3)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

from textual.notifications import SeverityLevel

from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import (
    Summarizer,
    SummaryFailed,
    SummaryHeld,
    edit_summary,
    roll_back,
)
from ctxchat.chat.summary_job import current_job
from ctxchat.chat.summary_review import (
    SummaryProposal,
    accept,
    mark_reviewed,
    report_for,
    settle_waiting,
)
from ctxchat.core.summary import FoldRange
from ctxchat.core.summary_loss import still_lost
from ctxchat.store import SummaryVersion
from ctxchat.tui.actions import key_for
from ctxchat.tui.job_words import CANCEL, InProgress, job_line, steps, summary_progress
from ctxchat.tui.parts.part import Flow, Job
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
    Every change to a conversation's summary says so with `Changed`. A summary is never
    begun while one is being made, here or by another process (`busy`)."""

    after_cancel: ClassVar[str] = " The summary in force stays as it was."

    def __init__(self) -> None:
        super().__init__()
        self._folding: Job | None = None
        """The automatic fold running now, if the job running is one."""
        self._held: set[int] = set()
        """Conversations whose automatic fold the user cancelled: not begun again (on a slow
        model every reply would wait behind it) until they summarize by hand."""

    def summarize(self) -> None:
        """Fold older turns of the conversation on screen into its summary now, after
        showing them."""
        session = self.session
        if not can_ask_model(self, session):
            return
        assert session is not None
        self._held.discard(session.stored_id)
        busy = self.busy(session)
        if busy is not None:
            self.notify(busy, severity="warning", markup=False)
            return
        fold = session.pending_fold(manual=True)
        if fold is None:
            self.notify(
                f"Nothing to summarize: the last {session.settings.context.min_recent} messages "
                "always stay in working memory.",
                markup=False,
            )
            return
        versions = session.store.summaries.summaries(session.stored_id)
        next_version = (max(v.version for v in versions) + 1) if versions else 1
        previews = [
            MessageView(m.id, m.role, m.content, m.status, tokens=m.tokens) for m in fold.messages
        ]

        def confirmed(go: bool | None) -> None:
            if go:
                self._propose(session, fold)

        from ctxchat.tui.screens.summarize_preview import SummarizePreview

        self.app.push_screen(
            SummarizePreview(
                previews, next_version=next_version, strategy=session.settings.summary.strategy
            ),
            confirmed,
        )

    def _propose(self, session: ChatSession, fold: FoldRange) -> None:
        """Have the model write the summary with `fold` folded in, then show it for review:
        it goes into force only when the user keeps it."""
        busy = self.busy(session)
        if busy is not None:
            self.notify(busy, severity="warning", markup=False)
            return

        async def write() -> None:
            self.notify(f"Summarizing {len(fold.messages)} messages…", markup=False)
            try:
                proposal = await Summarizer.for_session(session).propose(fold)
            except SummaryFailed as error:
                self.notify(
                    f"{error} The previous summary stays in force.", severity="error", markup=False
                )
                return
            self._review_proposal(session, proposal)

        self.run_job(
            f"Summarizing {len(fold.messages)} messages", write, group="summary", session=session
        )

    def _review_proposal(self, session: ChatSession, proposal: SummaryProposal) -> None:
        """The model's summary and what it lost, kept (as shown) or rejected by the user."""
        versions = session.store.summaries.summaries(session.stored_id)
        number = (max(v.version for v in versions) + 1) if versions else 1
        folded = proposal.folded
        headline = (
            f"The model's summary v{number}, folding messages #{folded[0].id}–#{folded[-1].id}. "
            "Edit it, add lost details back, then keep it; nothing is in force until then."
        )

        def reviewed(text: str | None) -> None:
            if text is None:
                self.notify("Summary rejected: the turns stay as they were.", markup=False)
                return
            try:
                version = accept(session, proposal, text)
                mark_reviewed(session, version.id)
            except SummaryFailed as error:
                self.notify(f"Nothing was stored: {error}", severity="error", markup=False)
                return
            self.notify(f"Summary v{version.version} is in force.", markup=False)

        from ctxchat.tui.screens.summary_review import SummaryReview  # loaded when opened

        self.app.push_screen(
            SummaryReview(
                proposal.text,
                lambda text: report_for(proposal, text),
                title="Review the summary",
                headline=headline,
                strategy=proposal.strategy,
            ),
            reviewed,
        )

    def _keep_waiting(self, session: ChatSession, version: SummaryVersion, text: str) -> None:
        """A summary held for review is kept: in force as it is, or as edited (a new version
        after it)."""
        accepted = settle_waiting(session, version.id, accepted=True)
        if text.strip() != version.text.strip():
            edited = edit_summary(session, text)
            mark_reviewed(session, edited.id)
            self.notify(f"Saved your edit as summary v{edited.version}.", markup=False)
        elif accepted is not None:
            self.notify(f"Summary v{accepted.version} is in force.", markup=False)

    def _review_version(self, session: ChatSession, version_id: int) -> None:
        """Review what a stored version lost: keeping it as it is marks it reviewed; an
        edited text is stored as a new version (reviewed too)."""
        version = next(
            (v for v in session.store.summaries.summaries(session.stored_id) if v.id == version_id),
            None,
        )
        if version is None:
            return
        covered = [m for m in session.history() if m.id <= version.last_message_id]

        def reviewed(text: str | None) -> None:
            if text is None and version.waiting:
                settle_waiting(session, version.id, accepted=False)
                self.notify(
                    f"Summary v{version.version} rejected: the turns stay as they were.",
                    markup=False,
                )
                return
            if text is None:
                return
            try:
                if version.waiting:
                    self._keep_waiting(session, version, text)
                elif text.strip() == version.text.strip():
                    mark_reviewed(session, version.id)
                    self.notify(f"Summary v{version.version} kept as it is.", markup=False)
                else:
                    active = session.active_summary()
                    if active is None or active.id != version.id:
                        roll_back(session, version.id)
                    edited = edit_summary(session, text)
                    mark_reviewed(session, edited.id)
                    self.notify(f"Saved your edit as summary v{edited.version}.", markup=False)
            except SummaryFailed as error:
                self.notify(str(error), severity="error", markup=False)

        from ctxchat.tui.screens.summary_review import SummaryReview  # loaded when opened

        self.app.push_screen(
            SummaryReview(
                version.text,
                lambda text: still_lost(covered, version.lost, text),
                title=f"Review summary v{version.version}",
                headline=(
                    f"Summary v{version.version}, messages #{version.first_message_id}–"
                    f"#{version.last_message_id}. "
                    + (
                        "Made automatically and held, not in force: keep it (as it is or "
                        "edited) to put it in force; escape rejects it."
                        if version.waiting
                        else "Keep it as it is, or edit it (a new version)."
                    )
                ),
                strategy=version.strategy,
                discard_question="Throw away your edits? The summary stays as it was.",
            ),
            reviewed,
        )

    def fold_pending(self, session: ChatSession) -> None:
        """Fold what left working memory, in the background; chatting goes on meanwhile."""
        if session.backend is None or self.busy(session) is not None:
            return  # the turn after the summary being made offers this fold again
        if session.conversation_id in self._held:
            return
        if session.store.summaries.waiting_summary(session.stored_id) is not None:
            return  # one waits for review: the plan says so, and another would fold the same
        fold = session.pending_fold()
        if fold is not None:
            self._run(
                session,
                f"Folding {len(fold.messages)} messages into the summary",
                lambda summarizer: summarizer.fold_automatic(fold),
                lambda version: (
                    f"Folded {len(fold.messages)} messages into summary v{version.version}."
                ),
                failure="warning",
            )
            self._folding = self.job

    def cancel_job(self) -> Job | None:
        """Stop the summary being made; an automatic fold stopped is not begun again in its
        conversation until the user summarizes by hand."""
        job = self.job
        if job is not None and job is self._folding and job.conversation_id is not None:
            self._held.add(job.conversation_id)
        self._folding = None
        return super().cancel_job()

    def cancelled_note(self, job: Job) -> str:
        if job.conversation_id not in self._held:
            return self.after_cancel
        keymap = self.session.settings.keymap if self.session is not None else {}
        key = key_for(self.app, keymap, "summary.summarize")
        return (
            f"{self.after_cancel} Automatic summaries of this conversation wait until you "
            f"summarize ({key})."
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
                flagged=len(v.lost) + len(v.faults) if v.flagged else 0,
                waiting=v.waiting,
            )
            for v in session.store.summaries.summaries(session.stored_id)
        ]

        def chosen(action: SummaryAction | None) -> None:
            if action is not None:
                self._chosen(session, action)

        from ctxchat.tui.screens.summary_versions import SummaryScreen

        self.app.push_screen(
            SummaryScreen(
                views,
                progress=lambda: self.in_progress(session),
                review_key=key_for(self.app, session.settings.keymap, "summary.review"),
            ),
            chosen,
        )

    # --- the summary being made -----------------------------------------------------------

    def busy(self, session: ChatSession) -> str | None:
        """Why no summary may begin now (one is being made: by this app, one at a time, or
        of this conversation by another process), or None."""
        job = self.job
        if job is not None:
            return (
                f"A summary is already being made ({job.what}): wait for it to finish, or "
                f"{self._cancel_key(session)} cancels it."
            )
        other = current_job(session)
        if other is not None and other.running and not other.here:
            now = session.store.now()
            return (
                f"Another ctxchat is already summarizing this conversation: "
                f"{other.describe(now)}. Wait for it to finish; F3 shows how far it got."
            )
        return None

    def in_progress(self, session: ChatSession) -> InProgress | None:
        """The summary of `session`'s conversation being made now (by this app or
        another process), as the summary versions show it."""
        key = self._cancel_key(session)
        now = session.store.now()
        record = current_job(session)
        if record is not None and record.running:
            return InProgress(summary_progress(record, now, key), record.here)
        job = self.job
        if job is not None and job.conversation_id == session.conversation_id:
            return InProgress(job_line(job, None, now, key), True)  # not yet recorded
        return None

    def progress(self, job: Job) -> str | None:
        session = self.session
        if session is None or job.conversation_id is None:
            return None
        record = session.store.summary_jobs.summary_job(job.conversation_id)
        return steps(record) if record is not None and record.running and record.here else None

    def _cancel_key(self, session: ChatSession) -> str:
        return key_for(self.app, session.settings.keymap, CANCEL)

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
                        "Rebuilding the summary from the original messages",
                        lambda summarizer: summarizer.rebuild(),
                        lambda version: f"Rebuilt as summary v{version.version}.",
                        announce=True,
                    )
            elif action.action == "summarize":
                self.summarize()
            elif action.action == "cancel":
                self.cancel_job()
            elif action.action == "review" and action.version_id is not None:
                self._review_version(session, action.version_id)
        except SummaryFailed as error:
            self.notify(str(error), severity="error", markup=False)

    def _run(
        self,
        session: ChatSession,
        what: str,
        job: SummaryJob,
        done: Callable[[SummaryVersion], str],
        *,
        announce: bool = False,
        failure: SeverityLevel = "error",
    ) -> None:
        """Run `job` (`what` it does, said at its start if `announce`) with the session's
        summarizer; tell the user how it went. Refused while a summary is being made here:
        a second job of the group would cancel the first."""
        busy = self.busy(session) if self.job is not None else None
        if busy is not None:
            self.notify(busy, severity="warning", markup=False)
            return
        started = f"{what}…" if announce else None
        self.run_job(
            what,
            lambda: self._summarize(session, job, done, started, failure),
            group="summary",
            session=session,
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
        except SummaryHeld as held:
            # Stored, not in force: the plan (panel, inspector) says a summary waits.
            self.notify(str(held), severity="warning", markup=False)
            return
        except SummaryFailed as error:
            self.notify(
                f"{error} The previous summary stays in force.", severity=failure, markup=False
            )
            return
        self.notify(done(version), markup=False)
