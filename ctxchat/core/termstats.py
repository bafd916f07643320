"""Word statistics of one conversation, so recall weighs words by what tells *its* messages apart.

A store-wide weight makes a speaker's name look rare (other conversations do not hold it) when
most of this conversation's messages hold it ("Wow, Maya, that looks amazing!"). Counting in
the conversation itself gives such words the weight they deserve here: almost none.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Iterable

_WORD = re.compile(r"\w+", re.UNICODE)

# Words this long are matched as prefixes, so "database" also finds "databases".
PREFIX_LENGTH = 5
# BM25's usual constants: how fast repeats of a word stop counting, how much length matters.
K1 = 1.2
B = 0.75


def words_of(text: str) -> list[str]:
    """The words of `text`, lower-cased, in order."""
    return _WORD.findall(text.casefold())


def term_matches(term: str, word: str) -> bool:
    """Whether `word` counts as `term` (the same word, or for long terms one it begins)."""
    return word == term or (len(term) >= PREFIX_LENGTH and word.startswith(term))


def spaced(text: str) -> str:
    """The words of `text` between single spaces, for `occurrences`."""
    return " " + " ".join(words_of(text)) + " "


def occurrences(term: str, spaced_words: str) -> int:
    """How many words of `spaced_words` (made by `spaced`) count as `term`; str.count keeps
    this fast on every candidate of every keystroke."""
    if len(term) >= PREFIX_LENGTH:
        return spaced_words.count(" " + term)
    return spaced_words.count(" " + term + " ")


class ConversationTerms:
    """How many of a conversation's messages hold each word, and how long they are."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._documents: Counter[str] = Counter()
        self._vocabulary: list[str] | None = None
        self._prefixes: dict[str, int] = {}
        self.messages = 0
        self.words = 0
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        """Count one more message."""
        words = words_of(text)
        self._documents.update(set(words))
        self.messages += 1
        self.words += len(words)
        self._vocabulary = None
        self._prefixes.clear()

    @property
    def average_length(self) -> float:
        return self.words / self.messages if self.messages else 1.0

    def documents(self, term: str) -> int:
        """How many messages hold `term` (as a prefix when it is long enough); a message with
        two words of one prefix counts twice, so long prefixes are a close upper bound."""
        if len(term) < PREFIX_LENGTH:
            return self._documents.get(term, 0)
        known = self._prefixes.get(term)
        if known is not None:
            return known
        if self._vocabulary is None:
            self._vocabulary = sorted(self._documents)
        vocabulary = self._vocabulary
        start = bisect.bisect_left(vocabulary, term)
        end = bisect.bisect_left(vocabulary, term + "\uffff", start)
        held = min(self.messages, sum(self._documents[w] for w in vocabulary[start:end]))
        self._prefixes[term] = held
        return held

    def weight(self, term: str) -> float:
        """BM25's inverse document frequency of `term` in this conversation (0 for a word
        every message holds, about ln(N) for one only a single message holds)."""
        held = self.documents(term)
        return math.log(1.0 + (self.messages - held + 0.5) / (held + 0.5))

    def weights(self, terms: Iterable[str]) -> dict[str, float]:
        return {term: self.weight(term) for term in terms}

    def relevance(self, words: str, weights: dict[str, float]) -> float:
        """BM25 of a text, as `spaced` words, for the terms of `weights` (from `weights()`:
        this conversation's own statistics)."""
        norm = K1 * (1.0 - B + B * (words.count(" ") - 1) / self.average_length)
        score = 0.0
        for term, weight in weights.items():
            frequency = occurrences(term, words)
            if frequency:
                score += weight * frequency * (K1 + 1.0) / (frequency + norm)
        return score
