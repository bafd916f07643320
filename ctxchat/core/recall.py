"""Recall: which earlier messages to bring back for the new input, and why.

The search itself (SQLite FTS5, and vectors when the embeddings extra is installed) runs
around the core; this module builds the query from the input, weighs what comes back by the
conversation's own word statistics, uses recency only to break near-ties (a newer decision
beats an older one on the same topic, but never buries the only answer), brings along the
answer to a recalled question, and fills the recall share by tokens.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ctxchat.core.adaptive import RecallDemand
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage, preview
from ctxchat.core.memory import MemoryEntry
from ctxchat.core.plan import LayerPlan, LeftOut, OtherConversation, PlanItem, Reason
from ctxchat.core.summary_recall import SummaryCover
from ctxchat.core.termstats import (
    PREFIX_LENGTH,
    ConversationTerms,
    occurrences,
    spaced,
    words_of,
)
from ctxchat.core.tokens import MESSAGE_OVERHEAD, TokenCounter, count_message

__all__ = ["PREFIX_LENGTH", "ConversationTerms"]

RECALL_HEADER = (
    "Earlier messages recalled for the new message, oldest first "
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


# English endings taken off a query word so that its stem, matched as a prefix, finds the
# other forms ("flooring" finds "floor", "catering" finds "caterer"); only when at least
# PREFIX_LENGTH letters are left, so short words keep their exact match.
_ENDINGS = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    """`word` without a common English ending, when enough of it is left to match as a prefix."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= PREFIX_LENGTH:
            return word[: -len(ending)]
    return word


def query_terms(text: str, limit: int = 12) -> list[str]:
    """Distinct content words of `text`, in order, lower-cased and stemmed, at most `limit`."""
    terms: list[str] = []
    # Lazily: `says_little` asks a whole message for three words.
    for match in _WORD.finditer(text.casefold()):
        found = match.group(0)
        if len(found) < 3 or found in _STOPWORDS or (found.isdigit() and len(found) < 4):
            continue
        word = stem(found)
        if word not in terms:
            terms.append(word)
        if len(terms) == limit:
            break
    return terms


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


# A word held by more than this share of a conversation's messages (a speaker's name, a
# greeting) tells none of them apart; it is not searched for in that conversation.
COMMON_SHARE = 0.2
# ...unless the conversation is too short for shares to mean anything.
COMMON_MIN_MESSAGES = 30


# Words in more than this share of a conversation's messages are left out of the query for
# meaning: a name in the question pulls every "Thanks, <name>!" closer than the answer.
MEANING_COMMON_SHARE = 0.08
_WORD_AND_POSSESSIVE = re.compile(r"\w+(?:'s\b)?", re.UNICODE)


def meaning_query(draft: str, stats: ConversationTerms, share: float = MEANING_COMMON_SHARE) -> str:
    """`draft` without the content words that tell this conversation's messages apart least
    (its speakers' names above all), for semantic search. Function words stay: the encoder
    reads a sentence better than a list of words. `draft` itself when nothing is left."""
    if stats.messages < COMMON_MIN_MESSAGES:
        return draft
    limit = share * stats.messages

    def keep(match: re.Match[str]) -> str:
        word = match.group(0).casefold().removesuffix("'s")
        common = word not in _STOPWORDS and stats.documents(stem(word)) > limit
        return "" if len(word) >= 3 and common else match.group(0)

    stripped = " ".join(_WORD_AND_POSSESSIVE.sub(keep, draft).split())
    return stripped if any(ch.isalnum() for ch in stripped) else draft


def uncommon_terms(
    terms: Sequence[str], stats: ConversationTerms, share: float = COMMON_SHARE
) -> tuple[list[str], list[str]]:
    """The terms worth searching this conversation for, and those too common in it."""
    if stats.messages < COMMON_MIN_MESSAGES:
        return list(terms), []
    limit = share * stats.messages
    kept = [t for t in terms if stats.documents(t) <= limit]
    return kept, [t for t in terms if t not in kept]


@dataclass(frozen=True, slots=True)
class RecallCandidate:
    """A search result from the store.

    `bm25` is the relevance, negated (lower is more relevant, as SQLite's bm25() is);
    `age` is how many messages of the conversation are newer than this one; `cosine` is the
    similarity in meaning when semantic search found it, `matched` whether full-text did.
    """

    ref: str
    role: str
    content: str
    tokens: int
    bm25: float
    age: int
    message_id: int | None = None
    cosine: float | None = None
    matched: bool = True
    terms: tuple[str, ...] | None = None
    """The query terms the content holds, when already worked out (else found when ranked)."""
    near: float | None = None
    """The cosine with the draft widened by its best matches in meaning (what ranked it)."""
    in_context: bool = False
    """Whether `near` is that of the message read with the one before it."""
    after: int | None = None
    """The full-text match this message follows, read with it (see `core.followers`)."""


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
    cosine: float | None = None
    near: float | None = None
    """The cosine with the draft widened by its best matches in meaning (what ranked it)."""
    in_context: bool = False
    """Whether `near` is that of the message read with the one before it."""
    dated: bool = False
    """Dated when the question asks about (which weighed it more)."""
    after: int | None = None
    """The full-text match it follows, read with it (its `terms` are that match's)."""
    neighbour_of: int | None = None
    follows: int | None = None
    """The recalled message this later one refers back to (see `with_references`)."""
    referred_by: int | None = None
    """The recalled message that refers back to this earlier one."""
    source: OtherConversation | None = None
    """The other conversation it was said in (recall across conversations; `message_id` is
    then None: it is no message of this conversation)."""

    @property
    def why(self) -> str:
        if self.source is not None and self.neighbour_of is not None:
            return (
                f"from “{self.source.title}” ({self.source.date}): the question or answer "
                "beside a match there"
            )
        if self.neighbour_of is not None:
            return (
                f"neighbour of #{self.neighbour_of} (question and answer); {self.age} messages ago"
            )
        if self.follows is not None:
            return (
                f"later on the topic of #{self.follows} (shares {', '.join(self.terms)}); "
                f"{self.age} messages ago"
            )
        if self.referred_by is not None:
            return (
                f"what #{self.referred_by} refers back to (shares {', '.join(self.terms)}); "
                f"{self.age} messages ago"
            )
        reasons = []
        if self.after is not None:
            reasons.append(
                f"read with #{self.after} before it, which matched {', '.join(self.terms)}"
            )
        elif self.terms:
            reasons.append("matched " + ", ".join(self.terms))
        if self.cosine is not None and self.near is not None and self.near > self.cosine + 0.005:
            # Search by meaning widens the draft in this conversation only (not across).
            how = [] if self.source is not None else ["with the best matches' meaning"]
            if self.in_context:
                how.append("read with the message before it")
            reasons.append(
                f"similar in meaning (cosine {self.cosine:.2f}; {self.near:.2f} {', '.join(how)})"
            )
        elif self.cosine is not None:
            reasons.append(f"similar in meaning (cosine {self.cosine:.2f})")
        if self.dated:
            reasons.append("dated when asked about")
        found = "; ".join(reasons) or "matched no exact term"
        if self.source is not None:
            return (
                f"from “{self.source.title}” ({self.source.date}): {found}; "
                f"score {self.score:.2f} (relevance {self.relevance:.2f} × "
                f"recency {self.recency:.2f})"
            )
        return (
            f"{found}; score {self.score:.2f} (relevance {self.relevance:.2f} × "
            f"recency {self.recency:.2f}, {self.age} messages ago)"
        )

    @property
    def label(self) -> str:
        return self.why


def history_terms(history: Iterable[HistoryMessage]) -> ConversationTerms:
    """The word statistics of the messages of `history` that may be sent (recall's weights)."""
    terms = ConversationTerms()
    for message in history:
        if message.sendable:
            terms.add(message.content, message.id)
    return terms


def memory_candidates(
    memory: Iterable[MemoryEntry],
    terms: Sequence[str],
    found: Sequence[RecallCandidate],
    count: Callable[[str, str], int],
) -> list[RecallCandidate]:
    """Memory entries matching the terms; the plan recalls only those its memory layer
    had to drop for budget. Relevance: the share of terms matched, on the messages' scale
    (`found`); `count(role, text)` counts an entry as a message."""
    if not terms:
        return []
    scale = max((-c.bm25 for c in found), default=5.0) or 5.0
    candidates = []
    for entry in memory:
        matched = matched_terms(entry.text, terms)
        if matched and entry.enabled and not entry.superseded:
            relevance = scale * len(matched) / len(terms)
            candidates.append(
                RecallCandidate(
                    entry.ref, "memory", entry.text, count("system", entry.text), -relevance, 0
                )
            )
    return candidates


def matched_terms(content: str, terms: Iterable[str]) -> tuple[str, ...]:
    words = spaced(content)
    return tuple(term for term in terms if occurrences(term, words))


def local_relevance(
    candidates: Iterable[RecallCandidate], terms: Sequence[str], stats: ConversationTerms
) -> list[RecallCandidate]:
    """Full-text candidates scored again by BM25 over this conversation alone, best first
    (the store's BM25 weighs words by every conversation)."""
    weights = stats.weights(terms)
    rescored = []
    for c in candidates:
        words = spaced(c.content)
        rescored.append(
            RecallCandidate(
                c.ref,
                c.role,
                c.content,
                c.tokens,
                -stats.relevance(words, weights),
                c.age,
                c.message_id,
                c.cosine,
                c.matched,
                tuple(term for term in terms if occurrences(term, words)),
            )
        )
    rescored.sort(key=lambda c: (c.bm25, c.age, c.ref))
    return rescored


# How much recency can take off a score: the oldest message keeps 1 − RECENCY_WEIGHT of it.
# Enough for a newer decision to beat an older one of about the same relevance, not enough
# to bury a clearly better old match (the only answer is often old).
RECENCY_WEIGHT = 0.25


def recency_factor(age: int, half_life: float) -> float:
    """1 for the newest message, falling towards 1 − RECENCY_WEIGHT with age."""
    return 1.0 - RECENCY_WEIGHT * (1.0 - math.pow(0.5, age / half_life))


# A message dated when the question asks about ("in June 2023", "on 3 June") weighs this
# much more; its words and meaning still rank it among the others so dated.
DATE_WEIGHT = 0.5
# A message that holds none of the names the question asks about weighs this share of its
# relevance, when some candidate holds one: "what did Maya paint?" is about Maya's turns,
# even where most turns hold "Maya" (a speaker's name, too common to search for).
NAME_MISS = 0.7
# Capitalised words of a question that are not names.
_NOT_NAMES = frozenset(
    """
    i what when where who whom whose which why how did does do is are was were will would
    could should can has have had the a an in on at of for to and or but if
    monday tuesday wednesday thursday friday saturday sunday
    january february march april may june july august september october november december
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z]\w*)(?:'s\b)?", re.UNICODE)


def asked_names(draft: str) -> tuple[str, ...]:
    """The names `draft` asks about, lower-cased: its capitalised words that do not start it
    (or a sentence of it), less question words and calendar names."""
    names = []
    for match in _CAPITALISED.finditer(draft.strip()):
        word = match.group(1).casefold()
        if len(word) >= 2 and word not in _NOT_NAMES and word not in names:
            names.append(word)
    return tuple(names)


def rank_recall(
    candidates: Iterable[RecallCandidate],
    terms: list[str],
    half_life: float = 150.0,
    *,
    asked: str = "",
) -> list[RecallHit]:
    """Order search results by relevance, recency breaking near-ties, best first.

    The recency factor falls from 1 to 1 − RECENCY_WEIGHT, halving its distance every
    `half_life` messages: between two about equally relevant messages the newer one wins,
    while a better match from long ago still outranks a weaker new one.

    With the question (`asked`): a message dated when it asks about weighs 1 + DATE_WEIGHT
    times as much (see `ctxchat.core.when`), and one holding none of the names it asks
    about that are not among `terms` NAME_MISS times (when another candidate holds one).
    """
    # Imported here: its patterns compile when a question is ranked, not at the app's start.
    from ctxchat.core.when import dated_within, dates_in

    candidates = list(candidates)
    when = dates_in(asked) if asked else ()
    # A name searched for ranks by its own weight already (and an answer in other words
    # need not hold it); a name too common to search for (a speaker's) is what this adds.
    names = tuple(n for n in asked_names(asked) if stem(n) not in terms) if asked else ()
    holders = _name_holders(candidates, names)
    hits = []
    for candidate in candidates:
        relevance = max(0.0, -candidate.bm25)
        dated = bool(when) and dated_within(candidate.content, when)
        if dated:
            relevance *= 1.0 + DATE_WEIGHT
        if holders and candidate.ref not in holders:
            relevance *= NAME_MISS
        recency = recency_factor(candidate.age, half_life)
        hits.append(
            RecallHit(
                ref=candidate.ref,
                role=candidate.role,
                content=candidate.content,
                tokens=candidate.tokens,
                score=relevance * recency,
                relevance=relevance,
                recency=recency,
                terms=(
                    ()
                    if not candidate.matched
                    else candidate.terms
                    if candidate.terms is not None
                    else matched_terms(candidate.content, terms)
                ),
                age=candidate.age,
                message_id=candidate.message_id,
                cosine=candidate.cosine,
                near=candidate.near,
                in_context=candidate.in_context,
                dated=dated,
                after=candidate.after,
            )
        )
    hits.sort(key=lambda hit: (-hit.score, hit.age, hit.ref))
    return hits


def _name_holders(candidates: Sequence[RecallCandidate], names: Sequence[str]) -> set[str]:
    """The refs of the candidates holding one of `names`: empty when none or all do (then
    the names tell none apart)."""
    if not names:
        return set()
    holders = set()
    for candidate in candidates:
        words = spaced(candidate.content)
        if any(occurrences(name, words) for name in names):
            holders.add(candidate.ref)
    return holders if 0 < len(holders) < len(candidates) else set()


# How far recall follows later messages that refer back: to a decision, to its change, to
# the change of that.
LATER_DEPTH = 3
# How many of the best hits bring the messages they refer back to and that refer back to
# them right after them. In a long everyday conversation most messages share some rare word
# with another ("the new puppy", "that bakery"): right after every hit, they would crowd
# out the next hits; the other hits' come after all hits.
REFERENCES_OF = 3


def with_references(
    hits: Sequence[RecallHit],
    history: Sequence[HistoryMessage],
    positions: dict[int, int],
    stats: ConversationTerms,
    top: int = REFERENCES_OF,
) -> list[RecallHit]:
    """The `top` best hits, each followed by the earlier message it refers back to, then by
    the later messages that refer back to it (newest first, and those by theirs, up to
    LATER_DEPTH); the other hits as they are.

    A message refers back to the earlier one it shares its rarest words with (see
    `ConversationTerms.refers_back_to`): the name of a thing, a place, a person. A decision
    can be changed later in words the question does not hold ("Scratch Naples, we're doing
    Malaga instead" for "where are you going on holiday?"), and an answer can name someone
    an earlier message introduced ("Tariq closed our first customer" for "who found our
    first customer, and what is their role?"): the shared name ties them. They follow their
    hit in priority, so the request holds the hit with what it builds on and what became
    of it.
    """
    ranked = {hit.message_id: hit for hit in hits if hit.message_id is not None}
    newest = len(history) - 1
    placed: set[int] = set()
    result: list[RecallHit] = []

    def text_of(message_id: int) -> str | None:
        position = positions.get(message_id)
        return history[position].content if position is not None else None

    def place(
        message_id: int, of: RecallHit, shared: tuple[str, ...], *, later: bool
    ) -> RecallHit | None:
        position = positions.get(message_id)
        if position is None or message_id in placed or not history[position].sendable:
            return None
        placed.add(message_id)
        message = history[position]
        # A hit in its own right keeps its own reasons; it just comes sooner.
        hit = ranked.get(message_id) or _brought(
            message,
            of,
            newest - position,
            terms=shared,
            follows=of.message_id if later else None,
            referred_by=None if later else of.message_id,
        )
        result.append(hit)
        return hit

    def follow(hit: RecallHit, depth: int) -> None:
        if hit.message_id is None or depth == LATER_DEPTH:
            return
        for later_id, shared in stats.referring_back(hit.message_id, hit.content, text_of):
            later = place(later_id, hit, shared, later=True)
            if later is not None:
                follow(later, depth + 1)

    def bring(hit: RecallHit) -> None:
        if hit.message_id is None or hit.after is not None:
            return  # a follower matched nothing of its own
        follow(hit, 0)
        earlier = stats.refers_back_to(hit.message_id, hit.content)
        if earlier is not None and (earlier_text := text_of(earlier)) is not None:
            held = set(words_of(earlier_text))
            shared = tuple(w for w in stats.topic_words(hit.content) if w in held)
            place(earlier, hit, shared, later=False)

    for rank, hit in enumerate(hits):
        if hit.message_id is None:
            result.append(hit)
            continue
        # A hit placed already (beside a message it refers to) still brings its own.
        if hit.message_id not in placed:
            placed.add(hit.message_id)
            result.append(hit)
        if rank < top:
            bring(hit)
    # The other hits bring theirs after every hit, for a budget with room to spare.
    for hit in hits[top:]:
        bring(hit)
    return result


# A hit scoring at least this share of the best one is a strong match: recall's share grows
# to hold the strong matches (up to the policy's `recall_most`). On long everyday
# conversations the answer is often far down the list (a fifth of the best score).
STRONG_SHARE = 0.2
# What a hit's tag (`[#123 user, 45 ago] `) costs beside its text, about.
TAG_TOKENS = 10


def recall_demand(
    hits: Sequence[RecallHit], total: int, strong: float = STRONG_SHARE
) -> RecallDemand:
    """How many hits score at least `strong` times the best, and the share of `total` tokens
    they take (tags included)."""
    best = max((hit.score for hit in hits), default=0.0)
    if best <= 0 or total <= 0:
        return RecallDemand()
    # A follower matched nothing of its own (see `core.followers`).
    chosen = [hit for hit in hits if hit.score >= strong * best and hit.after is None]
    tokens = sum(hit.tokens + TAG_TOKENS for hit in chosen)
    return RecallDemand(len(chosen), tokens / total)


def is_question(text: str) -> bool:
    return text.rstrip().endswith("?")


def with_neighbours(
    hits: Sequence[RecallHit],
    history: Sequence[HistoryMessage],
    positions: dict[int, int],
) -> list[RecallHit]:
    """The hits, each question followed by the message that answers it, and each answer
    preceded by the question it answers (when those are not hits already)."""
    found = {hit.message_id for hit in hits if hit.message_id is not None}
    result: list[RecallHit] = []
    for hit in hits:
        index = positions.get(hit.message_id) if hit.message_id is not None else None
        if index is None:
            result.append(hit)
            continue
        before = history[index - 1] if index > 0 else None
        after = history[index + 1] if index + 1 < len(history) else None
        if (
            hit.role == "assistant"
            and before is not None
            and before.role == "user"
            and is_question(before.content)
            and before.id not in found
        ):
            found.add(before.id)
            result.append(_neighbour(before, hit, hit.age + 1))
        result.append(hit)
        if (
            hit.role == "user"
            and is_question(hit.content)
            and after is not None
            and after.sendable
            and after.id not in found
        ):
            found.add(after.id)
            result.append(_neighbour(after, hit, hit.age - 1))
    return result


def _neighbour(message: HistoryMessage, of: RecallHit, age: int) -> RecallHit:
    return _brought(message, of, age, neighbour_of=of.message_id)


def _brought(
    message: HistoryMessage,
    of: RecallHit,
    age: int,
    *,
    terms: tuple[str, ...] = (),
    neighbour_of: int | None = None,
    follows: int | None = None,
    referred_by: int | None = None,
) -> RecallHit:
    """`message` as a hit brought along by the hit `of`, ranked as it is."""
    return RecallHit(
        ref=message.ref,
        role=message.role,
        content=message.content,
        tokens=message.tokens,
        score=of.score,
        relevance=of.relevance,
        recency=of.recency,
        terms=terms,
        age=max(age, 0),
        message_id=message.id,
        neighbour_of=neighbour_of,
        follows=follows,
        referred_by=referred_by,
    )


def render_hit(hit: RecallHit) -> str:
    """The line a hit becomes in the recall message, newline included: a short tag, then the
    text exactly as stored."""
    if hit.message_id is not None:
        return f"[#{hit.message_id} {hit.role}, {hit.age} ago] {hit.content}\n"
    if hit.source is not None:
        where = f"“{hit.source.title}”, {hit.source.date}"
        return f"[{hit.role} in another conversation, {where}] {hit.content}\n"
    return f"[{hit.ref.replace(':', ' ')}] {hit.content}\n"


def render_recall(hits: Sequence[RecallHit]) -> str:
    """The recall message: memory entries first, then messages oldest first."""
    ordered = sorted(hits, key=lambda hit: (hit.message_id is not None, -hit.age, hit.ref))
    return RECALL_HEADER + "\n" + "".join(render_hit(hit) for hit in ordered)


def plan_recall(
    budget: Budget,
    counter: TokenCounter,
    hits: Sequence[RecallHit],
    working: Sequence[HistoryMessage],
    memory_layer: LayerPlan,
    allowance: int,
    lent: int = 0,
    cover: SummaryCover | None = None,
    question: Sequence[str] = (),
) -> tuple[LayerPlan, str | None]:
    """The recall layer: the best hits that are not in working memory, until `allowance`
    tokens are used (a hit that does not fit is skipped for smaller ones after it).
    `lent` of them are tokens the other layers left unused, lent to recall's strong matches.

    A memory entry is recalled only when the memory layer dropped it for its budget: entries
    left out by objective mode or by the user stay out. A turn the summary the request
    sends covers (`cover`) is recalled only for a detail the question (`question`: its
    terms) names that the summary lacks, or beside one that is; its label says so.
    """
    label_of = _covered_labels(hits, cover, question)
    in_working = {m.id for m in working} if hits else set()
    budget_dropped = {o.ref for o in memory_layer.left_out if o.reason is Reason.BUDGET}
    left_out: list[LeftOut] = []
    chosen: list[RecallHit] = []
    items: list[PlanItem] = []
    # The same words said again ("We should plan something for the summer.") tell the model
    # nothing more: a text is recalled once. Working memory (thousands of messages in a long
    # conversation) is searched for the hits' texts only, and not at all without hits.
    texts = {hit.content for hit in hits}
    said = {m.content: m.ref for m in working if m.content in texts} if texts else {}
    used = count_message(counter, "system", RECALL_HEADER + "\n").tokens
    for hit in hits:
        if hit.message_id is not None and hit.message_id in in_working:
            left_out.append(
                LeftOut(
                    hit.ref,
                    hit.tokens,
                    Reason.DUPLICATE,
                    "already in working memory",
                    preview(hit.content),
                )
            )
        elif hit.message_id is not None and hit.content in said:
            left_out.append(
                LeftOut(
                    hit.ref,
                    hit.tokens,
                    Reason.DUPLICATE,
                    f"same text as {said[hit.content].replace('message:', '#')}",
                    preview(hit.content),
                )
            )
        elif hit.ref.startswith("memory:") and hit.ref not in budget_dropped:
            continue
        elif (label := label_of(hit)) is None:
            assert cover is not None  # only a covered turn has no label
            left_out.append(
                LeftOut(
                    hit.ref,
                    hit.tokens,
                    Reason.SUMMARIZED,
                    cover.left_out_detail(),
                    preview(hit.content),
                )
            )
        elif used + hit.tokens - MESSAGE_OVERHEAD - 1 <= allowance and (
            used + (line := counter.count_text(render_hit(hit))) <= allowance
        ):
            used += line
            chosen.append(hit)
            items.append(PlanItem(hit.ref, line, label, hit.source))
            said.setdefault(hit.content, hit.ref)
        else:
            # Too big to fit whatever its tag costs: its stored count says so.
            left_out.append(
                LeftOut(
                    hit.ref,
                    hit.tokens,
                    Reason.BUDGET,
                    f"dropped: over the recall budget ({hit.why})",
                    preview(hit.content),
                )
            )
    hints: tuple[str, ...] = ()
    if chosen:
        hints = ("newer messages outrank older ones on the same topic",)
    if chosen and lent:
        hints += (f"its strong matches also took {lent:,} tokens the other layers left unused",)
    layer = LayerPlan(
        Layer.RECALL,
        budget.nominal(Layer.RECALL) + lent,
        budget.shares.recall + (lent / budget.total if budget.total else 0.0),
        used if chosen else 0,
        tuple(items),
        tuple(left_out),
        hints=hints,
    )
    return layer, render_recall(chosen) if chosen else None


def _covered_labels(
    hits: Sequence[RecallHit], cover: SummaryCover | None, question: Sequence[str]
) -> Callable[[RecallHit], str | None]:
    """How each hit is labelled on the panel; None for a turn the summary covers that the
    question asks nothing of the summary lacks (it is left out as "in summary vN")."""
    if cover is None:
        return lambda hit: hit.why
    gaps: dict[int, str] = {}
    for hit in hits:
        if hit.message_id is not None and cover.covers(hit.message_id):
            # A hit found beside another matched that one's words, not the question's.
            own = (
                hit.neighbour_of is None
                and hit.follows is None
                and hit.referred_by is None
                and hit.after is None
            )
            gap = cover.gap(hit.message_id, hit.terms if own else (), question)
            if gap is not None:
                gaps[hit.message_id] = gap

    def label(hit: RecallHit) -> str | None:
        if hit.message_id is None or not cover.covers(hit.message_id):
            return hit.why
        if hit.message_id in gaps:
            return cover.recalled_label(gaps[hit.message_id], hit.why)
        anchor = hit.neighbour_of or hit.follows or hit.referred_by or hit.after
        if anchor is not None and (anchor in gaps or not cover.covers(anchor)):
            return cover.brought_label(anchor, hit.why)
        return None

    return label
