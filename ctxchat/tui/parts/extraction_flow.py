"""ExtractionFlow: the model proposes memory entries from recent turns; the user decides."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ctxchat.chat.session import ChatSession
from ctxchat.store import NotFound
from ctxchat.tui.parts.part import Flow
from ctxchat.tui.parts.summary_flow import can_ask_model
from ctxchat.tui.results_in_waiting import Asked, ResultReady
from ctxchat.tui.views import ProposalView

# The extractor and its model loads when a user asks for memory entries, not at the start.
if TYPE_CHECKING:
    from ctxchat.chat.extractor import ProposalDecision
    from ctxchat.core.extraction import ExtractionResult


def proposal_views(session: ChatSession, result: ExtractionResult) -> list[ProposalView]:
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


def still_there(session: ChatSession, result: ExtractionResult) -> bool:
    """Whether the messages the model read are still in their conversation (an edit and
    resend, or a deletion, takes them away: the proposals are then dropped)."""
    if result.span is None:
        return True
    try:
        messages = [session.store.messages.get_message(m) for m in result.span]
    except NotFound:
        return False
    return all(m.conversation_id == session.conversation_id for m in messages)


class ExtractionFlow(Flow):
    """Asks the model for memory proposals (one request at a time), offers the review when
    they come (`ResultReady`: it may wait for its key), and stores what the user accepts
    (through the memory book: the planner follows)."""

    def extract(self, asked: Asked) -> None:
        """Ask the model for proposals from the recent turns of the conversation on screen
        (`asked`: where the user was when they asked)."""
        session = self.session
        if can_ask_model(self, session):
            assert session is not None
            what = "Asking the model for memory entries"
            self.run_job(what, lambda: self._extract(session, asked), group="extract")

    async def _extract(self, session: ChatSession, asked: Asked) -> None:
        from ctxchat.chat.extractor import ExtractionFailed, extract_facts

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
                proposal_views(session, result),
                result.problems,
                allow_conversation_scope=session.conversation_id is not None,
                unasked=unasked,
            )

        def decided(decisions: list[ProposalDecision] | None) -> None:
            if decisions:
                self._apply(session, decisions, result.span)

        count = len(result.proposals)
        self.post_up(
            lambda: ResultReady(
                "extract",
                asked,
                review,
                decided,
                ready=f"{count} memory proposal{'' if count == 1 else 's'} ready: "
                "{key} opens the review.",
                opens="memory.extract",
                still_holds=lambda: still_there(session, result),
            )
        )

    def _apply(
        self,
        session: ChatSession,
        decisions: list[ProposalDecision],
        span: tuple[int, int] | None,
    ) -> None:
        from ctxchat.chat.extractor import apply_decisions

        # The messages the model read: the source of a proposal that names no message.
        written = apply_decisions(session, [replace(d, span=span) for d in decisions])
        self.notify(f"Stored {len(written)} memory entries.", markup=False)
