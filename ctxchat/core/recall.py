"""Recall: which earlier messages to bring back for the new input, and why.

The search itself (SQLite FTS5 with BM25) runs in the store; this module builds the query
from the input and ranks what comes back, weighting relevance by recency so that a newer
decision outranks an older one on the same topic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage, preview
from ctxchat.core.plan import LayerPlan, LeftOut, PlanItem, Reason
from ctxchat.core.tokens import TokenCounter, count_message

RECALL_HEADER = (
    "Earlier messages recalled by search for the new message "
    "(when they disagree, the more recent one holds):"
)

# Words too common to say what a message is about.
_STOPWORDS = frozenset(
    """
    the and for are but not you all any can had her was one our out day get has him his how
    man new now old see two way who boy did its let put say she too use that with have this
    will your from they know want been good much some time very when come here just like long
    make many more only over such take than them well were what about would there their which
    could other into then these those should does did doing done also again said tell told
    we us me my i it is be to of in on at by or an as so if do no yes ok okay please thanks
    это как что чтобы так там тут для при про над под без или его она они оно мне нам вам
    было были есть быть мы вы ты он же ли не ни да нет уже ещё еще всё все вот
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str, limit: int = 12) -> list[str]:
    """Distinct content words of `text`, in order, lower-cased, at most `limit`."""
    terms: list[str] = []
    for word in _WORD.findall(text.casefold()):
        if len(word) < 3 or word in _STOPWORDS or (word.isdigit() and len(word) < 4):
            continue
        if word not in terms:
            terms.append(word)
        if len(terms) == limit:
            break
    return terms


# Words this long are matched as prefixes, so "database" also finds "databases".
PREFIX_LENGTH = 5


def fts_query(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression: any of the terms, each quoted (prefix match for longer ones)."""
    parts = []
    for term in terms:
        quoted = '"' + term.replace('"', '""') + '"'
        parts.append(quoted + "*" if len(term) >= PREFIX_LENGTH else quoted)
    return " OR ".join(parts)


def distinctive_terms(
    terms: Sequence[str], documents: dict[str, int], max_matches: int = 10_000
) -> tuple[list[str], list[str]]:
    """The terms worth searching for, rarest first, and those skipped as too common.

    A word that many messages hold says little about which ones matter (its BM25 weight is
    near zero) and makes ranking slow, so terms are kept while the messages they match add
    up to at most `max_matches`; words found nowhere are dropped too.
    """
    kept: list[str] = []
    skipped: list[str] = []
    total = 0
    for term in sorted(terms, key=lambda t: documents.get(t, 0)):
        count = documents.get(term, 0)
        if count == 0:
            continue
        if total + count <= max_matches:
            kept.append(term)
            total += count
        else:
            skipped.append(term)
    order = {term: index for index, term in enumerate(terms)}
    return sorted(kept, key=order.__getitem__), sorted(skipped, key=order.__getitem__)


@dataclass(frozen=True, slots=True)
class RecallCandidate:
    """A search result from the store.

    `bm25` is SQLite's score (lower is more relevant, usually negative); `age` is how many
    messages of the conversation are newer than this one.
    """

    ref: str
    role: str
    content: str
    tokens: int
    bm25: float
    age: int
    message_id: int | None = None


@dataclass(frozen=True, slots=True)
class RecallHit:
    """A recalled item with the reasons it was recalled."""

    ref: str
    role: str
    content: str
    tokens: int
    score: float
    relevance: float
    recency: float
    terms: tuple[str, ...]
    age: int
    message_id: int | None = None

    @property
    def why(self) -> str:
        terms = ", ".join(self.terms) or "no exact term"
        return (
            f"matched {terms}; score {self.score:.2f} (relevance {self.relevance:.2f} × "
            f"recency {self.recency:.2f}, {self.age} messages ago)"
        )

    @property
    def label(self) -> str:
        return self.why


def matched_terms(content: str, terms: Iterable[str]) -> tuple[str, ...]:
    words = set(_WORD.findall(content.casefold()))
    found = []
    for term in terms:
        if term in words or (len(term) >= PREFIX_LENGTH and any(w.startswith(term) for w in words)):
            found.append(term)
    return tuple(found)


def rank_recall(
    candidates: Iterable[RecallCandidate], terms: list[str], half_life: float = 150.0
) -> list[RecallHit]:
    """Order search results by relevance × recency, best first.

    Recency halves every `half_life` messages, so between two equally relevant messages the
    newer one wins, while a much better match from long ago still outranks a weak new one.
    """
    hits = []
    for candidate in candidates:
        relevance = max(0.0, -candidate.bm25)
        recency = 0.5 ** (candidate.age / half_life)
        hits.append(
            RecallHit(
                ref=candidate.ref,
                role=candidate.role,
                content=candidate.content,
                tokens=candidate.tokens,
                score=relevance * recency,
                relevance=relevance,
                recency=recency,
                terms=matched_terms(candidate.content, terms),
                age=candidate.age,
                message_id=candidate.message_id,
            )
        )
    hits.sort(key=lambda hit: (-hit.score, hit.age, hit.ref))
    return hits


def render_hit(hit: RecallHit) -> str:
    """The line a hit becomes in the recall message, newline included."""
    text = " ".join(hit.content.split())
    source = hit.ref.replace(":", " ")
    return f"- [{source}, {hit.role}, {hit.age} messages ago] {text}\n"


def render_recall(hits: list[RecallHit]) -> str:
    return RECALL_HEADER + "\n" + "".join(render_hit(hit) for hit in hits)


def plan_recall(
    budget: Budget,
    counter: TokenCounter,
    hits: Sequence[RecallHit],
    working: Sequence[HistoryMessage],
    memory_layer: LayerPlan,
    allowance: int,
) -> tuple[LayerPlan, str | None]:
    """The recall layer: the best hits that are not in working memory, within `allowance`.

    A memory entry is recalled only when the memory layer dropped it for its budget: entries
    left out by objective mode or by the user stay out.
    """
    in_working = {m.id for m in working}
    budget_dropped = {o.ref for o in memory_layer.left_out if o.reason is Reason.BUDGET}
    left_out: list[LeftOut] = []
    chosen: list[RecallHit] = []
    items: list[PlanItem] = []
    used = count_message(counter, "system", RECALL_HEADER + "\n").tokens
    for hit in hits:
        line = counter.count_text(render_hit(hit))
        if hit.message_id is not None and hit.message_id in in_working:
            left_out.append(
                LeftOut(
                    hit.ref,
                    line,
                    Reason.DUPLICATE,
                    "already in working memory",
                    preview(hit.content),
                )
            )
        elif hit.ref.startswith("memory:") and hit.ref not in budget_dropped:
            continue
        elif used + line <= allowance:
            used += line
            chosen.append(hit)
            items.append(PlanItem(hit.ref, line, hit.why))
        else:
            left_out.append(
                LeftOut(
                    hit.ref,
                    line,
                    Reason.BUDGET,
                    "dropped: over the recall budget",
                    preview(hit.content),
                )
            )
    hints = ("newer messages outrank older ones on the same topic",) if chosen else ()
    layer = LayerPlan(
        Layer.RECALL,
        budget.nominal(Layer.RECALL),
        budget.shares.recall,
        used if chosen else 0,
        tuple(items),
        tuple(left_out),
        hints=hints,
    )
    return layer, render_recall(chosen) if chosen else None
