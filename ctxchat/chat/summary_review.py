"""What the user does with a summary: accept a proposal as written or edited (what the edit
still lacks of what the model's text lost), review one in force, edit it, or roll back."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.chat.session import ChatSession
from ctxchat.chat.summary_notice import what_it_lost
from ctxchat.core.history import HistoryMessage
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_loss import KeptWord, LossReport, LostDetail, still_lost
from ctxchat.store import StoreError, SummaryVersion
from ctxchat.store.summaries import SummaryChanged


class SummaryFailed(Exception):
    """Summarization did not produce a summary; the previous one stays in force."""


@dataclass(frozen=True, slots=True)
class SummaryProposal:
    """A summary made by the model but not in force: what it says and what it lost.

    It covers messages `first_message_id` to `last_message_id` once accepted; `folded` are
    the messages this fold read (the report is about them). `in_force` is the id of the
    version it was made from (None: no summary then); accepting it fails if another is in
    force by then. `cut` says the text was cut at the summary's limit (`max_tokens`): by
    the server, as longer than asked, or to make room for `kept`, the pinned entries and
    rules added back word for word.
    """

    conversation_id: int
    text: str
    first_message_id: int
    last_message_id: int
    folded: tuple[HistoryMessage, ...]
    in_force: int | None
    strategy: SummaryStrategy
    model: str | None
    cut: bool
    lost: LossReport
    kept: tuple[KeptWord, ...] = ()
    max_tokens: int = 0
    note: str = ""
    faults: tuple[str, ...] = ()
    """What its check found besides lost details, in words (see `core/summary_check.py`)."""

    @property
    def doubtful(self) -> bool:
        """Its check found something: it lost details, or has a fault."""
        return bool(self.lost or self.faults)


class SummaryHeld(SummaryFailed):
    """An automatic summary its check found something in is held for the user's review
    (`version`, not in force); the turns it would fold are sent as they were meanwhile."""

    def __init__(self, version: SummaryVersion, message: str) -> None:
        self.version = version
        super().__init__(message)


def accept(
    session: ChatSession,
    proposal: SummaryProposal,
    text: str | None = None,
    *,
    waiting: bool = False,
) -> SummaryVersion:
    """Put `proposal` in force, as the model wrote it or as the user edited it (`text`), or,
    `waiting`, store it held for the user's review.

    An edited text is flagged `edited`, no longer `cut`, and its report says what it still
    lacks of what the model's text lost (the check's faults were of the model's text). Raises
    SummaryFailed, storing nothing, when another version came into force since the proposal
    was made.
    """
    edited = text is not None and text.strip() != proposal.text.strip()
    final = text.strip() if text is not None and edited else proposal.text
    if not final.strip():
        raise SummaryFailed("An empty summary cannot be saved; reject it instead.")
    lost = still_lost(proposal.folded, proposal.lost.lost, final) if edited else proposal.lost.lost
    note = proposal.note
    if edited:
        note = "edited by you before it went into force" if not note else f"{note}, then edited"
    try:
        return session.writer.add_summary(
            final,
            first_message_id=proposal.first_message_id,
            last_message_id=proposal.last_message_id,
            strategy=proposal.strategy,
            model=proposal.model,
            edited=edited,
            note=note,
            cut=proposal.cut and not edited,
            lost=lost,
            in_force=proposal.in_force,
            faults=() if edited else proposal.faults,
            waiting=waiting,
        )
    except SummaryChanged as error:
        raise SummaryFailed(str(error)) from error
    except StoreError as error:  # a message it covers was deleted meanwhile
        raise SummaryFailed(f"The summary cannot be saved: {error}") from error


def put_automatic(session: ChatSession, proposal: SummaryProposal) -> SummaryVersion:
    """Put a summary made without the user (after a turn, by `ctxchat send`) in force if its
    check found nothing, or if the user accepts automatic summaries as they come (`[summary]
    accept_unreviewed`: then flagged, not reviewed). Otherwise it is held for review: raises
    SummaryHeld with it, and the summary in force stays."""
    if not proposal.doubtful or session.settings.summary.accept_unreviewed:
        return accept(session, proposal)
    held = accept(session, proposal, waiting=True)
    raise SummaryHeld(
        held,
        f"Summary v{held.version} waits for your review, not in force: "
        f"{what_it_lost(held.lost, held.faults)}. "
        "Review it with f3 in the app; the turns it would fold are sent as they were.",
    )


def report_for(proposal: SummaryProposal, text: str) -> tuple[LostDetail, ...]:
    """What `text` (the proposal's text as the user is editing it) still lacks of what the
    model's text lost: the preview's list, shrinking as items are added back."""
    return still_lost(proposal.folded, proposal.lost.lost, text)


def mark_reviewed(session: ChatSession, summary_id: int) -> SummaryVersion:
    """The user looked at what a version in force lost and keeps it: no longer flagged."""
    return session.writer.mark_summary_reviewed(summary_id)


def settle_waiting(
    session: ChatSession, summary_id: int, *, accepted: bool
) -> SummaryVersion | None:
    """The user reviewed a summary held for review: kept, it goes into force (reviewed);
    else it is deleted, never having been in force (see `Summaries.settle_waiting`)."""
    return session.writer.settle_waiting(summary_id, accepted=accepted)


def edit_summary(session: ChatSession, text: str) -> SummaryVersion:
    """Store the user's own text as a new, edited version covering the same messages; its
    report keeps what the edited text still lacks of what the version in force lost."""
    active = session.active_summary()
    if active is None:
        raise SummaryFailed("There is no summary to edit yet.")
    if not text.strip():
        raise SummaryFailed("An empty summary cannot be saved; roll back instead.")
    covered = [m for m in session.history() if m.id <= active.last_message_id]
    return session.writer.add_summary(
        text.strip(),
        first_message_id=active.first_message_id,
        last_message_id=active.last_message_id,
        strategy=active.strategy,
        model=None,
        edited=True,
        note=f"edited by you from v{active.version}",
        lost=still_lost(covered, active.lost, text.strip()),
    )


def roll_back(session: ChatSession, summary_id: int | None) -> None:
    """Make an earlier version (or none) the one in force: rejecting a summary that went
    into force is rolling back to the one before it."""
    session.activate_summary(summary_id)
