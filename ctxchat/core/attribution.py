"""Which parts of the context a reply most likely drew on: an estimate, never sent to the model.

Each memory entry, summary line and recalled turn the request held is compared with the reply:
the distinctive words they share (words rare among the sources count more), and, when the
caller has embeddings, how close they are in meaning. Pure: similarities are an input.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan
from ctxchat.core.recall import PREFIX_LENGTH, query_terms
from ctxchat.core.summary import SUMMARY_HEADER

# A source counts as used when the reply shares at least this share of its distinctive
# weight (and two of its words, or one no other source holds) ...
WORD_SHARE = 0.3
# ... or, with embeddings, when it is at least this close in meaning to the reply.
SIMILARITY = 0.55
# Semantic closeness alone needs at least one shared word too: meaning is fuzzy.
SIMILARITY_WITH_WORD = 0.45


@dataclass(frozen=True, slots=True)
class Source:
    """Something the request held: `ref` names it (`memory:4`, `summary:v3#2`, `message:17`)."""

    ref: str
    text: str


@dataclass(frozen=True, slots=True)
class Use:
    """A source the reply most likely drew on, with the evidence."""

    ref: str
    words: tuple[str, ...]
    """The distinctive words the reply shares with it, most telling first."""
    share: float
    """The share of the source's distinctive weight the reply holds (0 to 1)."""
    similarity: float | None = None
    """Closeness in meaning (cosine), when embeddings were available."""

    @property
    def evidence(self) -> str:
        """In words, for the panels (labelled an estimate there)."""
        parts = []
        if self.words:
            parts.append("shares " + ", ".join(f'"{w}"' for w in self.words[:5]))
        if self.similarity is not None:
            parts.append(f"meaning {self.similarity:.2f} close")
        return "; ".join(parts) or "close in meaning"


def _stem(word: str) -> str:
    # Long words match on their start, as recall does ("databases" ~ "database"), and a
    # plural on its singular ("orms" ~ "orm").
    if len(word) > PREFIX_LENGTH:
        return word[:PREFIX_LENGTH]
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _terms(text: str) -> list[str]:
    return query_terms(text, limit=64)


def estimate_use(
    reply: str,
    sources: Sequence[Source],
    similarity: Mapping[str, float] | None = None,
) -> list[Use]:
    """The sources `reply` most likely drew on, in the order given."""
    reply_stems = {_stem(word) for word in _terms(reply)}
    terms = {source.ref: _terms(source.text) for source in sources}
    # A word many sources hold says little about which one was used.
    holders: dict[str, int] = {}
    for words in terms.values():
        for stem in {_stem(word) for word in words}:
            holders[stem] = holders.get(stem, 0) + 1
    total = len(sources) + 1

    uses: list[Use] = []
    for source in sources:
        words = terms[source.ref]
        weights = {word: math.log(1 + total / holders[_stem(word)]) for word in words}
        if not weights:
            continue
        shared = sorted(
            (word for word in weights if _stem(word) in reply_stems),
            key=lambda word: -weights[word],
        )
        share = sum(weights[word] for word in shared) / sum(weights.values())
        close = (similarity or {}).get(source.ref)
        # One shared word is enough when no other source holds it ("Svelte").
        telling = len(shared) >= 2 or (bool(shared) and holders[_stem(shared[0])] == 1)
        lexical = share >= WORD_SHARE and telling
        semantic = close is not None and (
            close >= SIMILARITY or (close >= SIMILARITY_WITH_WORD and bool(shared))
        )
        if lexical or semantic:
            uses.append(Use(source.ref, tuple(shared), round(share, 3), close))
    return uses


def summary_sources(ref: str, text: str) -> list[Source]:
    """A summary's lines as sources, `ref#N` for line N (from 1); blank lines skipped."""
    return [
        Source(f"{ref}#{number}", line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]


def request_sources(plan: ContextPlan, texts: Mapping[str, str]) -> list[Source]:
    """What a request held that a reply could draw on: its memory entries, summary lines and
    recalled turns. `texts` gives the text of each memory entry and message by ref."""
    sources = [
        Source(item.ref, texts[item.ref])
        for layer in (Layer.MEMORY, Layer.RECALL)
        for item in plan.layer(layer).items
        if item.ref in texts
    ]
    for message in plan.messages:
        if message.layer is Layer.SUMMARY:
            body = message.content.removeprefix(SUMMARY_HEADER + "\n")
            sources.extend(summary_sources(message.ref, body))
    return sources


def never_used(
    refs: Sequence[str], replies: Sequence[Sequence[Use]], last: int
) -> dict[str, int | None]:
    """For each ref, how many of the last `last` replies ago it was last used (None: in none).

    `replies` are oldest first; the memory panel sorts the never-used ones first.
    """
    recent = list(replies)[-last:] if last > 0 else []
    seen: dict[str, int | None] = dict.fromkeys(refs)
    for age, uses in enumerate(reversed(recent)):
        for use in uses:
            if use.ref in seen and seen[use.ref] is None:
                seen[use.ref] = age
    return seen
