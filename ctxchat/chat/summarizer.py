"""Summarization with the model: incremental folds in chunks that fit the window, a reply cut
at the summary's limit kept to its last whole sentence, what a fold must keep kept word for
word, the loss report, and proposals the user accepts, edits or rejects."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxchat.chat.request_room import request_room, system_role_reaches
from ctxchat.chat.session import ChatSession
from ctxchat.chat.summary_job import JobKind, JobProgress, SummaryBusy, summarizing
from ctxchat.chat.summary_review import (
    SummaryFailed,
    SummaryHeld,
    SummaryProposal,
    accept,
    edit_summary,
    mark_reviewed,
    put_automatic,
    report_for,
    roll_back,
)
from ctxchat.config.errors import MissingApiKey, UnknownProfile
from ctxchat.core.budget import BudgetError
from ctxchat.core.history import HistoryMessage
from ctxchat.core.summary import (
    FoldRange,
    SummaryStrategy,
    batches_for_summarizer,
    build_fold_request,
    cut_at_sentence,
    summary_allowance,
    whole_sentences,
)
from ctxchat.core.summary_check import check_summary
from ctxchat.core.summary_loss import (
    KeptWord,
    holds_text,
    loss_report,
    must_keep,
)
from ctxchat.model.backend import ModelBackend
from ctxchat.model.errors import ErrorKind, ProviderError
from ctxchat.store import SummaryVersion

# Fewer tokens than this for the turns of one request is no room to summarize in.
MIN_CHUNK = 200
# A summary allowed fewer tokens than this could not say anything.
MIN_SUMMARY = 16
# The heading over what a summary keeps word for word.
KEPT_HEADING = "Kept word for word (pinned, or a rule that was stated):"
# Marks a message cut to fit one request.
CUT_MESSAGE = " […the rest of this message did not fit the summarizer's window]"


class SummaryInProgress(SummaryFailed):
    """Another job (in this process or another) is summarizing the conversation."""

    def __init__(self, busy: SummaryBusy) -> None:
        self.job = busy.job
        super().__init__(f"{busy} Wait for it to finish.")


class SummaryWaits(SummaryFailed):
    """A summary made automatically waits for the user's review: none is made meanwhile."""

    def __init__(self, waiting: SummaryVersion) -> None:
        self.version = waiting
        super().__init__(
            f"Summary v{waiting.version} waits for your review (f3 in the app): no other is "
            "made until it is accepted or rejected."
        )


@dataclass
class _Draft:
    """The summary as the chunks of one fold build it."""

    text: str | None
    cut: bool = False


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
    requests: int = 0

    @classmethod
    def for_session(cls, session: ChatSession, backend: ModelBackend | None = None) -> Summarizer:
        """The summarizer the settings ask for (by default the chat server and model): the
        summary profile's server, key and headers when `[summary] profile` names another."""
        try:
            profile = session.choice.summary_profile()
            chosen = backend or session.choice.summary_backend()
        except (MissingApiKey, UnknownProfile) as error:
            raise SummaryFailed(f"Cannot summarize: {error}") from error
        if chosen is None:
            raise SummaryFailed("No model server is configured to summarize with.")
        return cls(session, chosen, profile.model, session.settings.summary.strategy)

    # --- limits ---------------------------------------------------------------------------

    def max_tokens(self) -> int:
        """The longest summary: `[summary] max_tokens`, at most what the summary share of the
        budget allows (what the share allows when the setting is 0)."""
        session = self.session
        try:
            budget = session.budget
        except BudgetError as error:
            raise SummaryFailed(f"Cannot summarize: {error}") from error
        return summary_allowance(budget, session.counter, session.settings.summary.max_tokens)

    def _chunk_room(self, max_tokens: int) -> int:
        """Tokens of turns one request may carry: the window less the reply asked for, the
        instructions, the summary so far (at most `max_tokens`) and the template's room."""
        session = self.session
        instructions = sum(
            session.count(m["role"], m["content"])
            for m in build_fold_request(self.strategy, "x", [])
        )
        # The reply asked for, and the summary so far (no longer than that) in the request.
        room = request_room(session, 2 * max_tokens) - instructions
        if room < MIN_CHUNK:
            raise SummaryFailed(
                f"The model's window ({session.budget.context_window:,} tokens) leaves no room "
                f"to summarize with a summary of up to {max_tokens:,} tokens. "
                "Lower max_tokens in the [summary] config table."
            )
        return room

    # --- asking the model ------------------------------------------------------------------

    async def _ask(
        self, previous: str | None, batch: Sequence[HistoryMessage], max_tokens: int
    ) -> tuple[str, bool]:
        """One request: the reply, and whether the output limit cut it."""
        request = build_fold_request(
            self.strategy,
            previous,
            batch,
            system_role=system_role_reaches(self.session, self.backend),
        )
        self.tokens_sent += sum(self.session.count(m["role"], m["content"]) for m in request)
        self.requests += 1
        try:
            answer, _usage = await self.backend.complete(
                request, model=self.model, max_tokens=max_tokens
            )
        except ProviderError as error:
            if error.kind is ErrorKind.TRUNCATED_LENGTH:
                return error.partial_text, True
            raise
        return answer, False

    def _fitted(self, batch: Sequence[HistoryMessage], room: int) -> list[HistoryMessage]:
        """The batch, a message too long for one request cut at a sentence to fit."""
        counter = self.session.counter
        fitted = []
        for message in batch:
            if message.tokens > room:
                kept = cut_at_sentence(message.content, room - 16, counter).text + CUT_MESSAGE
                message = dataclasses.replace(message, content=kept, tokens=room)
            fitted.append(message)
        return fitted

    async def _fold_chunk(
        self, draft: _Draft, batch: Sequence[HistoryMessage], max_tokens: int, room: int
    ) -> None:
        try:
            answer, cut = await self._ask(draft.text, self._fitted(batch, room), max_tokens)
        except ProviderError as error:
            if error.kind is ErrorKind.CONTEXT_OVERFLOW and len(batch) > 1:
                # The server counts more than we do: fold the chunk in two halves.
                half = len(batch) // 2
                await self._fold_chunk(draft, batch[:half], max_tokens, room // 2)
                await self._fold_chunk(draft, batch[half:], max_tokens, room // 2)
                return
            raise SummaryFailed(f"Summarization failed: {error}") from error
        text = answer.strip()
        if cut:
            text = whole_sentences(text)
        counter = self.session.counter
        if text and counter.count_text(text) > max_tokens:
            text, cut = cut_at_sentence(text, max_tokens, counter).text, True
        if not text:
            if cut:
                raise SummaryFailed(
                    f"Summarization failed: the model's reply reached the summary's limit "
                    f"({max_tokens:,} tokens) before its first sentence ended. "
                    + self._longer_remedy(max_tokens)
                )
            raise SummaryFailed(
                "Summarization failed: the model returned an empty summary. "
                "Set model in the [summary] config table to one that writes summaries."
            )
        draft.text, draft.cut = text, draft.cut or cut

    def _longer_remedy(self, max_tokens: int) -> str:
        """The one setting that lets a summary be longer."""
        if self.session.settings.summary.max_tokens and max_tokens < summary_allowance(
            self.session.budget, self.session.counter
        ):
            return "Raise max_tokens in the [summary] config table."
        return "Raise the summary share (summary in the [context.shares] config table)."

    async def _write(
        self,
        previous: str | None,
        messages: Sequence[HistoryMessage],
        progress: JobProgress,
    ) -> tuple[str, bool, int]:
        """Fold `messages` into `previous`, chunk by chunk; the text, whether a reply was cut,
        and the limit it was held to."""
        max_tokens = self.max_tokens()
        if max_tokens < MIN_SUMMARY:
            raise SummaryFailed(
                f"The summary's share of the budget leaves it {max_tokens} tokens. "
                + self._longer_remedy(max_tokens)
            )
        draft = _Draft(previous)
        if previous is not None and self.session.counter.count_text(previous) > max_tokens:
            # A summary stored longer than its share (by an older ctxchat, or edited): the
            # request must still fit, and the plan would cut it anyway.
            draft = _Draft(cut_at_sentence(previous, max_tokens, self.session.counter).text)
        batches = batches_for_summarizer(messages, self._chunk_room(max_tokens))
        for number, batch in enumerate(batches, start=1):
            progress.step(number, len(batches))
            await self._fold_chunk(draft, batch, max_tokens, self._chunk_room(max_tokens))
        if draft.text is None:
            raise SummaryFailed("There was nothing to summarize.")
        return draft.text, draft.cut, max_tokens

    # --- proposals --------------------------------------------------------------------------

    async def propose(
        self, fold: FoldRange, on_progress: Callable[[JobProgress], None] | None = None
    ) -> SummaryProposal:
        """The summary with `fold` folded in (previous summary + the new messages only), and
        what it lost; nothing is stored. Raises SummaryInProgress while another job runs."""
        session = self.session
        previous = session.active_summary()
        if previous is not None and fold.first_id <= previous.last_message_id:
            raise SummaryFailed("Those messages are already in the summary.")
        first = previous.first_message_id if previous else fold.first_id
        return await self._propose(
            JobKind.FOLD,
            fold.messages,
            previous.text if previous else None,
            first,
            previous.id if previous else None,
            "",
            on_progress,
        )

    async def propose_rebuild(
        self, on_progress: Callable[[JobProgress], None] | None = None
    ) -> SummaryProposal:
        """A summary of the covered messages written again from the originals (undoing the
        drift of repeated folds); nothing is stored."""
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
        return await self._propose(
            JobKind.REBUILD,
            tuple(covered),
            None,
            covered[0].id,
            active.id if active else None,
            "rebuilt from the original messages",
            on_progress,
        )

    async def _propose(
        self,
        kind: JobKind,
        messages: tuple[HistoryMessage, ...],
        previous: str | None,
        first_id: int,
        in_force: int | None,
        note: str,
        on_progress: Callable[[JobProgress], None] | None,
    ) -> SummaryProposal:
        session = self.session
        try:
            with summarizing(session, kind, messages) as progress:
                if on_progress is not None:
                    on_progress(progress)
                text, cut, max_tokens = await self._write(previous, messages, progress)
        except SummaryBusy as busy:
            raise SummaryInProgress(busy) from busy
        covered = [m for m in session.history() if first_id <= m.id <= messages[-1].id]
        must = must_keep(covered, session.memory())
        faults = check_summary(
            text,
            messages,
            strategy=self.strategy,
            previous=previous,
            kept=[k.text for k in must],
        )
        kept = [k for k in must if not holds_text(text, k.text)]
        text, kept, shortened = _with_kept(text, kept, max_tokens, session, self.strategy)
        return SummaryProposal(
            conversation_id=session.stored_id,
            text=text,
            first_message_id=first_id,
            last_message_id=messages[-1].id,
            folded=messages,
            in_force=in_force,
            strategy=self.strategy,
            model=self.model,
            cut=cut or shortened,
            lost=loss_report(messages, text),
            kept=tuple(kept),
            max_tokens=max_tokens,
            note=note,
            faults=faults.words(),
        )

    # --- straight into force ----------------------------------------------------------------

    async def fold(self, fold: FoldRange) -> SummaryVersion:
        """Fold `fold` into the active summary and put the result in force, asked for by
        hand where no review is shown (`ctxchat summarize`, which prints what it lost):
        flagged, not reviewed, when its check found something."""
        return accept(self.session, await self.propose(fold))

    async def fold_automatic(self, fold: FoldRange) -> SummaryVersion:
        """Fold `fold` into the active summary without the user (after a turn, `ctxchat
        send`): in force when its check found nothing, else held for review (raises
        SummaryHeld; see `put_automatic`). While one is held no other is made (raises
        SummaryWaits): it would fold the same turns."""
        session = self.session
        waiting = session.store.summaries.waiting_summary(session.stored_id)
        if waiting is not None:
            raise SummaryWaits(waiting)
        return put_automatic(session, await self.propose(fold))

    async def rebuild(self) -> SummaryVersion:
        """Summarize again from the stored originals and put that in force."""
        return accept(self.session, await self.propose_rebuild())


def _with_kept(
    text: str,
    kept: list[KeptWord],
    max_tokens: int,
    session: ChatSession,
    strategy: SummaryStrategy,
) -> tuple[str, list[KeptWord], bool]:
    """`text` with what must be kept added word for word, the model's part shortened at a
    sentence to make room: the text, what was added, and whether the text was shortened.
    What cannot fit even alone stays out (the loss report names it)."""
    counter = session.counter
    while kept:
        block = kept_block(kept, strategy)
        room = max_tokens - counter.count_text("\n\n" + block)
        if room >= 0:
            fitted = cut_at_sentence(text, room, counter)
            joined = f"{fitted.text}\n\n{block}" if fitted.text else block
            return joined, kept, fitted.cut
        kept = kept[:-1]
    return text, [], False


def kept_block(kept: Sequence[KeptWord], strategy: SummaryStrategy) -> str:
    """The lines a summary keeps word for word, in the strategy's form."""
    if strategy is SummaryStrategy.KEYVALUE:
        return "\n".join(f"constraint: {item.text}" for item in kept)
    return KEPT_HEADING + "\n" + "\n".join(f"- {item.text}" for item in kept)


__all__ = [
    "Summarizer",
    "SummaryFailed",
    "SummaryHeld",
    "SummaryInProgress",
    "SummaryProposal",
    "SummaryWaits",
    "accept",
    "edit_summary",
    "kept_block",
    "mark_reviewed",
    "report_for",
    "roll_back",
]
