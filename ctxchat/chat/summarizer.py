"""Summarization with the model: incremental folds, rebuilds from originals, edits, rollback."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxchat.chat.session import ChatSession
from ctxchat.config.errors import MissingApiKey, UnknownProfile
from ctxchat.core.history import HistoryMessage
from ctxchat.core.summary import (
    FoldRange,
    SummaryStrategy,
    batches_for_summarizer,
    build_fold_request,
)
from ctxchat.model.backend import ModelBackend
from ctxchat.model.errors import ProviderError
from ctxchat.store import SummaryVersion

# Room kept in the summarizer's window for its instructions, the previous summary's growth
# and the new summary it writes.
_PROMPT_ROOM = 600


class SummaryFailed(Exception):
    """Summarization did not produce a summary; the previous one stays in force."""


@dataclass
class Summarizer:
    """Folds messages into a conversation's summary with a model.

    `tokens_sent` adds up every request's prompt tokens, so the cost of incremental folding
    can be measured against re-summarizing everything.
    """

    session: ChatSession
    backend: ModelBackend
    model: str
    strategy: SummaryStrategy
    tokens_sent: int = 0

    @classmethod
    def for_session(cls, session: ChatSession, backend: ModelBackend | None = None) -> Summarizer:
        """The summarizer the settings ask for (by default the chat server and model): the
        summary profile's server, key and headers when `[summary] profile` names another."""
        try:
            profile = session.summary_profile()
            chosen = backend or session.summary_backend()
        except (MissingApiKey, UnknownProfile) as error:
            raise SummaryFailed(f"Cannot summarize: {error}") from error
        if chosen is None:
            raise SummaryFailed("No model server is configured to summarize with.")
        return cls(session, chosen, profile.model, session.settings.summary.strategy)

    def _batch_limit(self, previous: str | None) -> int:
        budget = self.session.budget
        room = budget.total // 2 - _PROMPT_ROOM
        if previous:
            room -= self.session.counter.count_text(previous)
        return max(500, room)

    async def _fold_messages(self, previous: str | None, messages: Sequence[HistoryMessage]) -> str:
        text = previous
        for batch in batches_for_summarizer(messages, self._batch_limit(previous)):
            request = build_fold_request(self.strategy, text, batch)
            self.tokens_sent += sum(self.session.count(m["role"], m["content"]) for m in request)
            try:
                answer, _usage = await self.backend.complete(request, model=self.model)
            except ProviderError as error:
                raise SummaryFailed(f"Summarization failed: {error}") from error
            if not answer.strip():
                raise SummaryFailed("Summarization failed: the model returned an empty summary.")
            text = answer.strip()
        if text is None:
            raise SummaryFailed("There was nothing to summarize.")
        return text

    async def fold(self, fold: FoldRange) -> SummaryVersion:
        """Fold `fold` into the active summary: previous summary + the new messages only."""
        session = self.session
        previous = session.active_summary()
        if previous is not None and fold.first_id <= previous.last_message_id:
            raise SummaryFailed("Those messages are already in the summary.")
        text = await self._fold_messages(previous.text if previous else None, fold.messages)
        return session.add_summary(
            text,
            first_message_id=previous.first_message_id if previous else fold.first_id,
            last_message_id=fold.last_id,
            strategy=self.strategy,
            model=self.model,
        )

    async def rebuild(self) -> SummaryVersion:
        """Summarize again from the stored originals, undoing drift of repeated folds."""
        session = self.session
        active = session.active_summary()
        history = session.history()
        if active is not None:
            covered = [m for m in history if m.id <= active.last_message_id and m.sendable]
        else:
            fold = session.pending_fold(manual=True)
            covered = list(fold.messages) if fold else []
        if not covered:
            raise SummaryFailed("There are no messages to rebuild a summary from.")
        text = await self._fold_messages(None, covered)
        return session.add_summary(
            text,
            first_message_id=covered[0].id,
            last_message_id=covered[-1].id,
            strategy=self.strategy,
            model=self.model,
            note="rebuilt from the original messages",
        )


def edit_summary(session: ChatSession, text: str) -> SummaryVersion:
    """Store the user's own text as a new, edited version covering the same messages."""
    active = session.active_summary()
    if active is None:
        raise SummaryFailed("There is no summary to edit yet.")
    if not text.strip():
        raise SummaryFailed("An empty summary cannot be saved; roll back instead.")
    return session.add_summary(
        text.strip(),
        first_message_id=active.first_message_id,
        last_message_id=active.last_message_id,
        strategy=active.strategy,
        model=None,
        edited=True,
        note=f"edited by you from v{active.version}",
    )


def roll_back(session: ChatSession, summary_id: int | None) -> None:
    """Make an earlier version (or none) the one in force."""
    session.activate_summary(summary_id)
