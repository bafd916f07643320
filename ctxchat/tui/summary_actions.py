"""Summary and extraction actions: summarize now, versions, rebuild, edit, extract facts."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from textual import work

from ctxchat.chat.extractor import (
    ExtractionFailed,
    ProposalDecision,
    apply_decisions,
    extract_facts,
)
from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import SummaryFailed, edit_summary, roll_back
from ctxchat.core.extraction import ExtractionResult
from ctxchat.store import NotFound
from ctxchat.tui.results_in_waiting import Asked, ResultsInWaiting
from ctxchat.tui.views import MessageView, ProposalView, SummaryVersionView

if TYPE_CHECKING:
    from ctxchat.tui.screens.summary_versions import SummaryAction


class SummaryActions(ResultsInWaiting):
    """Summaries run in the background; the chat stays usable meanwhile."""

    def _can_ask_model(self) -> bool:
        if not self.has_session or self.session.conversation_id is None:
            self.notify("Open a conversation first.", markup=False)
            return False
        if self.session.backend is None:
            self.notify(
                "No model server is configured; press F4.", severity="warning", markup=False
            )
            return False
        return True

    def action_summarize(self) -> None:
        if not self._can_ask_model():
            return
        session = self.session
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
                self.summarize_in_background(
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

    def action_summaries(self) -> None:
        if not self.has_session or self.session.conversation_id is None:
            self.notify("Open a conversation first.", markup=False)
            return
        session = self.session
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
                self._summary_action(session, action)

        from ctxchat.tui.screens.summary_versions import SummaryScreen

        self.app.push_screen(SummaryScreen(views), chosen)

    def _summary_action(self, session: ChatSession, action: SummaryAction) -> None:
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
                if self._can_ask_model():
                    self.summarize_in_background(
                        session,
                        lambda summarizer: summarizer.rebuild(),
                        lambda version: f"Rebuilt as summary v{version.version}.",
                        started="Rebuilding the summary from the original messages…",
                    )
            elif action.action == "summarize":
                self.action_summarize()
        except SummaryFailed as error:
            self.notify(str(error), severity="error", markup=False)
        self.refresh_plan()

    # --- extraction ---------------------------------------------------------------------

    def action_extract(self) -> None:
        # Proposals that came while the user was busy open now, rather than asking again.
        if self.open_waiting("extract"):
            return
        if self._can_ask_model():
            self._run_extraction(self.session, self.asked())

    @work(exclusive=True, group="extract", exit_on_error=False)
    async def _run_extraction(self, session: ChatSession, asked: Asked) -> None:
        self.notify("Asking the model for memory entries…", markup=False)
        try:
            result = await extract_facts(session)
        except ExtractionFailed as error:
            self.notify(str(error), severity="error", markup=False)
            return
        if not result.proposals and not result.problems:
            self.notify("The model proposed nothing new.", markup=False)
            return
        from ctxchat.tui.screens.extraction import ExtractionReview

        def review(unasked: bool) -> ExtractionReview:
            return ExtractionReview(
                self._proposal_views(session, result),
                result.problems,
                allow_conversation_scope=session.conversation_id is not None,
                unasked=unasked,
            )

        def decided(decisions: list[ProposalDecision] | None) -> None:
            if decisions:
                self._apply(self.open_session_for(session) or session, decisions, result.span)

        count = len(result.proposals)
        self.offer(
            "extract",
            asked,
            review,
            decided,
            ready=f"{count} memory proposal{'' if count == 1 else 's'} ready: "
            f"{self.key_for('memory.extract')} opens the review.",
            still_holds=lambda: self._still_there(session, result),
        )

    def _proposal_views(self, session: ChatSession, result: ExtractionResult) -> list[ProposalView]:
        """The proposals as the review shows them, beside the memory entries they match."""
        known = {entry.id: entry.text for entry in session.memory()}
        return [
            ProposalView(
                index=index,
                kind=p.kind,
                text=p.text,
                importance=p.importance,
                source_message_id=p.message_id,
                matches_entry_id=p.matches_entry_id,
                matches_text=known.get(p.matches_entry_id, "") if p.matches_entry_id else "",
            )
            for index, p in enumerate(result.proposals)
        ]

    def _still_there(self, session: ChatSession, result: ExtractionResult) -> bool:
        """Whether the messages the model read are still in their conversation (an edit
        and resend, or a deletion, takes them away: the proposals are then dropped)."""
        if result.span is None:
            return True
        try:
            messages = [session.store.get_message(m) for m in result.span]
        except NotFound:
            return False
        return all(m.conversation_id == session.conversation_id for m in messages)

    def _apply(
        self,
        session: ChatSession,
        decisions: list[ProposalDecision],
        span: tuple[int, int] | None,
    ) -> None:
        # The messages the model read: the source of a proposal that names no message.
        written = apply_decisions(session, [replace(d, span=span) for d in decisions])
        self.notify(f"Stored {len(written)} memory entries.", markup=False)
        if self.has_session and session is self.session:
            self.refresh_plan()
