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
from collections.abc import Callable, Iterable

_WORD = re.compile(r"\w+", re.UNICODE)

# Words this long are matched as prefixes, so "database" also finds "databases".
PREFIX_LENGTH = 5
# BM25's usual constants: how fast repeats of a word stop counting, how much length matters.
K1 = 1.2
B = 0.75
# A word at most this share of a conversation's messages hold (a place, a product, a
# person's name said in passing) ties the messages that hold it to one topic.
TOPIC_SHARE = 0.01
# ...and at most this many: a word more messages hold is a running theme, not the name of one
# thing, and following it would cost time on long histories (which messages hold a word is
# kept for this many).
TOPIC_POSTINGS = 20


def words_of(text: str) -> list[str]:
    """The words of `text`, lower-cased, in order."""
    return _WORD.findall(text.casefold())


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
        self._holders: dict[str, list[int]] = {}
        self._refers: dict[int, int | None] = {}
        self._weights: dict[str, float] = {}
        # Topic words by text: recall asks again for the same hits' on every plan.
        self._topics: dict[str, list[tuple[str, float]]] = {}
        self._referring: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
        self.messages = 0
        self.words = 0
        for text in texts:
            self.add(text)

    def add(self, text: str, message_id: int | None = None) -> None:
        """Count one more message (the newest: ids grow with time); with its id, its rare
        words tie it to the earlier message it refers back to (see `refers_back_to`)."""
        every = words_of(text)
        words = set(every)
        self._documents.update(words)
        self.messages += 1
        self.words += len(every)
        self._vocabulary = None
        self._prefixes.clear()
        self._refers.clear()
        self._weights.clear()
        self._topics.clear()
        self._referring.clear()
        if message_id is not None:
            for word in words:
                held = self._holders.setdefault(word, [])
                if len(held) <= TOPIC_POSTINGS:
                    held.append(message_id)

    STATE_VERSION = 1
    """Of `state()`'s shape: a state of another version is not read back."""

    def state(self) -> tuple[int, int, int, dict[str, int], dict[str, list[int]]]:
        """What the statistics are, in builtins (kept between runs by `chat/term_files.py`);
        `from_state` makes them again."""
        return (self.STATE_VERSION, self.messages, self.words, dict(self._documents), self._holders)

    @classmethod
    def from_state(cls, state: object) -> ConversationTerms | None:
        """The statistics `state()` gave (None: not a state of this version)."""
        if not (isinstance(state, tuple) and len(state) == 5 and state[0] == cls.STATE_VERSION):
            return None
        _, messages, words, documents, holders = state
        if not (
            isinstance(messages, int)
            and isinstance(words, int)
            and isinstance(documents, dict)
            and isinstance(holders, dict)
        ):
            return None
        terms = cls()
        terms.messages, terms.words = messages, words
        terms._documents = Counter(documents)
        terms._holders = holders
        return terms

    def topic_words(self, text: str) -> list[str]:
        """The words of `text` that at most TOPIC_SHARE of the messages hold (and at least
        one other message does): names of places, products, people said in passing."""
        return [word for word, _ in self._topic_weights(text)]

    def _topic_weights(self, text: str) -> list[tuple[str, float]]:
        known = self._topics.get(text)
        if known is not None:
            return known
        limit = min(max(2.0, TOPIC_SHARE * self.messages), TOPIC_POSTINGS)
        found = []
        for word in dict.fromkeys(words_of(text)):
            if len(word) >= 3 and not word.isdigit() and 2 <= self._documents[word] <= limit:
                weight = self._weights.get(word)
                if weight is None:
                    weight = self._weights[word] = self.weight(word)
                found.append((word, weight))
        self._topics[text] = found
        return found

    def _shared(self, text: str, message_id: int, *, later: bool) -> dict[int, float]:
        """The messages after (or before) `message_id` that share topic words with `text`,
        and how much those words weigh."""
        shared: dict[int, float] = {}
        for word, weight in self._topic_weights(text):
            held = self._holders.get(word, [])
            cut = (
                bisect.bisect_right(held, message_id)
                if later
                else bisect.bisect_left(held, message_id)
            )
            for other in held[cut:] if later else held[:cut]:
                shared[other] = shared.get(other, 0.0) + weight
        return shared

    def refers_back_to(self, message_id: int, text: str) -> int | None:
        """The earlier message that `text` (message `message_id`) shares the rarest words with
        (the newest among equals): the one it most likely refers back to."""
        if message_id in self._refers:
            return self._refers[message_id]
        shared = self._shared(text, message_id, later=False)
        best = max(shared, key=lambda i: (shared[i], i)) if shared else None
        self._refers[message_id] = best
        return best

    def referring_back(
        self, message_id: int, text: str, text_of: Callable[[int], str | None]
    ) -> list[tuple[int, tuple[str, ...]]]:
        """The later messages that refer back to message `message_id` (see `refers_back_to`),
        newest first, each with the topic words it shares with `text`."""
        known = self._referring.get(message_id)
        if known is not None:
            return known
        found = []
        for later in sorted(self._shared(text, message_id, later=True), reverse=True):
            later_text = text_of(later)
            if later_text is not None and self.refers_back_to(later, later_text) == message_id:
                held = set(words_of(later_text))
                found.append((later, tuple(w for w in self.topic_words(text) if w in held)))
        self._referring[message_id] = found
        return found

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
