"""Recaller: which earlier messages (and memory entries) recall brings for a session's new
message, searched in its conversation and, as `[recall] across` says, in the others of its
project or in all of them. The ranking is core/recall.py's; this part gathers what it ranks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from ctxchat.chat.changes import ChangeLog
from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session_part import PartOwner
from ctxchat.chat.term_files import conversation_terms
from ctxchat.core.across import Others, RecallAcross
from ctxchat.core.followers import with_followers
from ctxchat.core.history import HistoryMessage
from ctxchat.core.next_message import NEXT_MESSAGE
from ctxchat.core.plan import OtherConversation
from ctxchat.core.recall import (
    ConversationTerms,
    RecallCandidate,
    RecallHit,
    distinctive_terms,
    fts_query,
    history_terms,
    is_question,
    local_relevance,
    meaning_query,
    memory_candidates,
    query_terms,
    rank_recall,
    uncommon_terms,
    with_neighbours,
    with_references,
)
from ctxchat.embeddings import EmbeddingsUnavailable, missing_packages
from ctxchat.store.search import OtherHit

if TYPE_CHECKING:
    from ctxchat.core.memory import MemoryEntry

WORDS_ONLY = "Recall by words only, not by meaning."
CACHED_DRAFTS = 16
"""How many drafts' results are kept (typing a message asks for each prefix of it)."""


def unembedded_note(missing: int, searched: int) -> str:
    """The plan's note while some earlier messages have no vector yet: recall by meaning
    searched only the others (they are embedded in the background, or by the next command)."""
    return (
        f"Recall by meaning searched {searched - missing:,} of {searched:,} earlier messages; "
        f"{missing:,} are not embedded yet."
    )


OTHERS_UNEMBEDDED = (
    "Recall by meaning did not search every message of the other conversations yet: "
    "they are embedded in the background."
)
"""The plan's note while some messages of the other conversations recall searches have
no vector (or their vectors are still loading): by words it searched them all."""


def words_only_note(missing: list[str]) -> str:
    """The plan's warning when semantic recall is on in the config but `missing` (packages
    of the embeddings extra) are not installed: what to install to have it."""
    return f"{WORDS_ONLY} {EmbeddingsUnavailable(missing)}"


def other_conversation(hit: OtherHit) -> OtherConversation:
    """Where a hit of another conversation was said, as the plan names it."""
    day = datetime.fromtimestamp(hit.created_at).astimezone().date().isoformat()
    return OtherConversation(hit.conversation_id, hit.title, day)


def unsaid(
    found: Sequence[OtherHit], history: Sequence[HistoryMessage], before: Sequence[OtherHit]
) -> list[OtherHit]:
    """The hits of other conversations but a text this conversation holds already (a
    branch copies its conversation's turns), one of `before` holds, or a hit said first."""
    said = {m.content for m in history} | {hit.candidate.content for hit in before}
    kept: list[OtherHit] = []
    for hit in found:
        if hit.candidate.content not in said:
            said.add(hit.candidate.content)
            kept.append(hit)
    return kept


def asks(message: OtherHit) -> bool:
    """Whether the message is the user's question (its answer may be a hit)."""
    return message.candidate.role == "user" and is_question(message.candidate.content)


class RecallSource(PartOwner, Protocol):
    """What recall reads of its session: the conversation, its history and memory as
    the session keeps them, and its counter."""

    def history(self) -> list[HistoryMessage]: ...
    def positions(self) -> dict[int, int]: ...
    def memory(self) -> list[MemoryEntry]: ...
    def project_id(self) -> int | None: ...
    def count(self, role: str, content: str) -> int: ...


class Recaller:
    """Recall for one session (`ChatSession.recaller`): its results by draft and the word
    statistics of the history they are weighed by, kept until the session says they changed.
    Called under the session's lock (the session's `recall` and plans take it)."""

    def __init__(self, session: RecallSource, *, across: RecallAcross | None = None) -> None:
        self._session = session
        self.across: RecallAcross = session.settings.recall.across if across is None else across
        """Where recall looks besides the conversation (the config's, switched for the run)."""
        self.semantic: SemanticRecall | None = None
        """Recall by meaning, once the embeddings extra has loaded (see chat/semantic.py)."""
        self.unembedded = 0
        """Earlier messages recall by meaning could not search (no vector yet), as of the
        newest recall worked out with it."""
        self.embedding_note = ""
        """The plan's note about those messages ("" when there are none)."""
        self._missing_note: str | None = None
        self._results: dict[tuple[RecallAcross, str], tuple[RecallHit, ...]] = {}
        """Results by where recall looked and the draft."""
        self._terms: ConversationTerms | None = None
        self._changes = ChangeLog.of(session.store)
        self._seen_changes = self._changes.total()
        self._seen_others = 0
        """The other conversations' vectors the kept results were worked out with."""
        self._caught_up: list[HistoryMessage] | None = None
        """The history recall by meaning last brought its vectors in line with."""

    def use_semantic(self, semantic: SemanticRecall | None) -> None:
        """Recall by meaning with `semantic` from now on (None: by words): results change."""
        self.semantic = semantic
        self._caught_up = None
        self.forget()
        self._plan_changed()

    def forget(self) -> None:
        """Results may change (new vectors, memory, a message)."""
        self._results.clear()

    def forget_history(self) -> None:
        """The history was read again: its word statistics are counted again when asked."""
        self._results.clear()
        self._terms = None

    def took(self, message: HistoryMessage, *, new: bool) -> None:
        """The session took `message` into its history: a `new` one is counted in the word
        statistics as they stand, an edit has them counted again when next asked."""
        self._results.clear()
        if self._terms is not None:
            if new and message.sendable:
                self._terms.add(message.content, message.id)
            elif not new:
                self._terms = None

    def switch_across(self) -> RecallAcross:
        """Search the next choice of other conversations (project → all → off), for the run."""
        self.across = self.across.following()  # results are kept by it: none to forget
        self._plan_changed()
        return self.across

    def _plan_changed(self) -> None:
        session = self._session
        ChangeLog.of(session.store).plan_changed(session.conversation_id)

    def terms(self) -> ConversationTerms:
        if self._terms is None:
            session = self._session
            self._terms = conversation_terms(
                session.store.path, session.conversation_id, session.history()
            )
        return self._terms

    def missing_note(self) -> str:
        """What the plan says when semantic recall is configured but cannot run (packages of
        the embeddings extra are missing); empty when it can, or is off."""
        if self._missing_note is None:
            recall = self._session.settings.recall
            missing = missing_packages() if recall.enabled and recall.semantic else []
            self._missing_note = words_only_note(missing) if missing else ""
        return self._missing_note

    def recall(self, draft: str | None, upto: int | None = None) -> tuple[RecallHit, ...]:
        """Earlier messages (and memory entries) relevant to `draft`, best first; among the
        first `upto` messages only when given, as if the history ended there (see `plan`)."""
        session = self._session
        settings = session.settings.recall
        if (
            not draft
            or draft == NEXT_MESSAGE
            or not settings.enabled
            or not session.conversation_id
        ):
            return ()
        across = self.across
        if across is not RecallAcross.OFF and self._changes.total() != self._seen_changes:
            # Another session of the run wrote to a conversation this one may recall from.
            self._seen_changes = self._changes.total()
            self._results.clear()
        semantic = self.semantic
        if semantic is not None and semantic.other_conversations.changes != self._seen_others:
            # The other conversations' vectors were loaded, or more embedded, since.
            self._seen_others = semantic.other_conversations.changes
            self._results.clear()
        cached = self._results.get((across, draft)) if upto is None else None
        if cached is not None:
            return cached
        terms = query_terms(draft)
        kept, _skipped = distinctive_terms(terms, session.store.search.term_documents(terms))
        full = session.history()
        if semantic is not None and semantic.ready and full is not self._caught_up:
            # The history was read again (another process wrote, a message was edited).
            semantic.catch_up(full)
            self._caught_up = full
        history = full[:upto]
        stats = self.terms() if upto is None else history_terms(history)
        # Words most of this conversation holds (names, greetings) tell nothing apart here.
        kept, _common = uncommon_terms(kept, stats)
        positions = session.positions()
        newest = len(history) - 1
        recent = session.settings.context.min_recent
        # The newest messages are always in working memory: no need to find them.
        before = history[-recent].id if recent and len(history) >= recent else None
        if before is None and upto is not None and upto < len(full):
            before = full[upto].id  # nothing from the message answered on

        def age_of(message_id: int) -> int:
            return newest - positions.get(message_id, newest)

        def known(message_id: int) -> HistoryMessage | None:
            position = positions.get(message_id)
            return history[position] if position is not None else None

        candidates: list[RecallCandidate] = []
        others: list[OtherHit] = []
        scope = across.others(session.project_id())  # the other conversations searched
        by_meaning = semantic is not None and settings.semantic and semantic.ready
        if kept:
            found = session.store.search.search_messages(
                session.stored_id,
                fts_query(kept),
                limit=settings.limit,
                before_id=before,
                age_of=age_of,
            )
            candidates = local_relevance(found, kept, stats)
            if not by_meaning:  # by meaning each message's vector is read so already
                candidates = with_followers(candidates, history, positions, before)
            others = self._other_conversations(scope, kept, history)
            candidates.extend(hit.candidate for hit in others)
        self.unembedded, self.embedding_note = 0, ""
        if semantic is not None and by_meaning:
            from ctxchat.embeddings import fuse

            # Meaning finds what shares no words with the draft ("which DB did we pick?").
            # What full-text search found but has no vector yet is embedded first.
            semantic.want([c.message_id for c in candidates if c.message_id is not None])
            query = meaning_query(draft, stats)
            # Twice as deep as by words: on long everyday conversations the answers that
            # share no word with the message lie far down this list, and full-text search
            # that deep only brings noise (measured with bench/locomo.py, bench/recall_quality.py).
            meaning = semantic.candidates(query, 2 * settings.limit, before, age_of, known)
            found_elsewhere = self._others_by_meaning(semantic, scope, query, others, history)
            others.extend(found_elsewhere)
            meaning.extend(hit.candidate for hit in found_elsewhere)
            candidates = fuse(candidates, meaning)
            self.unembedded, searched = semantic.unembedded(history, recent, stats)
            notes = [unembedded_note(self.unembedded, searched)] if self.unembedded else []
            if scope is not None and not semantic.other_conversations.holds_all(scope):
                notes.append(OTHERS_UNEMBEDDED)
            self.embedding_note = " ".join(notes)
        hits: tuple[RecallHit, ...] = ()
        if candidates or kept:
            candidates.extend(memory_candidates(session.memory(), kept, candidates, session.count))
            ranked = rank_recall(candidates, kept, settings.half_life, asked=draft)
            later = with_references(ranked, history, positions, stats)
            hits = tuple(with_neighbours(later, history, positions))
            if others:
                hits = self._placed_elsewhere(hits, others, history)
        if len(self._results) > CACHED_DRAFTS:
            self._results.clear()
        if upto is None:
            self._results[across, draft] = hits
        return hits

    def _placed_elsewhere(
        self,
        hits: Sequence[RecallHit],
        others: Sequence[OtherHit],
        history: Sequence[HistoryMessage],
    ) -> tuple[RecallHit, ...]:
        """The hits, those of other conversations named by their conversation, each with its
        question or answer there beside it, as `with_neighbours` brings them here: a
        question is followed by the message after it, an answer preceded by its question."""
        by_ref = {hit.candidate.ref: hit for hit in others}
        found = {hit.ref for hit in hits}
        said = {m.content for m in history}
        store = self._session.store
        placed: list[RecallHit] = []
        for hit in hits:
            other = by_ref.get(hit.ref)
            if other is None:
                placed.append(hit)
                continue
            hit = dataclasses.replace(hit, source=other_conversation(other))
            before, after = store.search.around_other(other)
            if hit.role == "assistant" and before is not None and asks(before):
                placed.extend(self._beside(before, hit, found, said))
            placed.append(hit)
            if hit.role == "user" and is_question(hit.content) and after is not None:
                placed.extend(self._beside(after, hit, found, said))
        return tuple(placed)

    @staticmethod
    def _beside(
        message: OtherHit, of: RecallHit, found: set[str], said: set[str]
    ) -> list[RecallHit]:
        """`message` as a hit brought beside `of`, ranked as it is (none when found already,
        or when this conversation says the same)."""
        candidate = message.candidate
        if candidate.ref in found or candidate.content in said:
            return []
        found.add(candidate.ref)
        return [
            RecallHit(
                ref=candidate.ref,
                role=candidate.role,
                content=candidate.content,
                tokens=candidate.tokens,
                score=of.score,
                relevance=of.relevance,
                recency=of.recency,
                terms=(),
                age=candidate.age,
                neighbour_of=message.message_id,
                source=other_conversation(message),
            )
        ]

    def others(self) -> Others | None:
        """The other conversations recall searches besides this one (None: none)."""
        return self.across.others(self._session.project_id())

    def _other_conversations(
        self, scope: Others | None, kept: Sequence[str], history: Sequence[HistoryMessage]
    ) -> list[OtherHit]:
        """What full-text search finds in the other conversations `scope` names, but a
        text this conversation holds already (a branch copies its conversation's turns) or
        another hit said first."""
        if scope is None:
            return []
        session = self._session
        found = session.store.search.search_other_conversations(
            session.stored_id,
            fts_query(kept),
            project_id=scope.project_id,
            limit=session.settings.recall.limit,
            newer=len(history),
        )
        return unsaid(found, history, ())

    def _others_by_meaning(
        self,
        semantic: SemanticRecall,
        scope: Others | None,
        query: str,
        by_words: Sequence[OtherHit],
        history: Sequence[HistoryMessage],
    ) -> list[OtherHit]:
        """What recall by meaning finds in the other conversations `scope` names, but what
        full-text search found there already or this conversation says (none until their
        vectors are loaded, which the app does in a worker)."""
        if scope is None:
            return []
        found = semantic.other_candidates(
            query, scope, 2 * self._session.settings.recall.limit, newer=len(history)
        )
        return unsaid(found, history, by_words)
