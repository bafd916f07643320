"""Token counting: exact with tiktoken where the encoding is known, a labelled estimate otherwise."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from ctxchat.core.encodings import EncodingUnavailable, load_encoding, preload

# The OpenAI chat format: every message costs 3 tokens besides its role and content,
# and the reply is primed with 3 more (<|start|>assistant<|message|>).
MESSAGE_OVERHEAD = 3
REPLY_PRIMER = 3

_O200K_PREFIXES = (
    "gpt-4o",
    "chatgpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "gpt-oss",
    "o1",
    "o3",
    "o4",
)
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada")


@dataclass(frozen=True, slots=True)
class TokenCount:
    """A number of tokens and whether it is exact or an estimate."""

    tokens: int
    exact: bool


@dataclass(frozen=True, slots=True)
class EncodingChoice:
    """Which encoding a model uses, and whether that is known or a stand-in."""

    encoding: str
    approximate: bool
    note: str


def bare_model_name(model: str) -> str:
    """`openai/gpt-4o` or `GPT-4o` → `gpt-4o` (router prefixes and case do not matter)."""
    return model.strip().lower().rsplit("/", 1)[-1]


def encoding_for_model(model: str) -> EncodingChoice:
    """The tiktoken encoding for a model name; cl100k_base, flagged approximate, if unknown."""
    name = bare_model_name(model)
    if name.startswith(_O200K_PREFIXES):
        return EncodingChoice("o200k_base", False, f"o200k_base, the encoding of {name}")
    if name.startswith(_CL100K_PREFIXES):
        return EncodingChoice("cl100k_base", False, f"cl100k_base, the encoding of {name}")
    shown = name or "an unnamed model"
    return EncodingChoice(
        "cl100k_base",
        True,
        f"approximate: {shown} is not an OpenAI model, counted with cl100k_base",
    )


class TokenCounter(Protocol):
    """Counts tokens of text; says whether its counts are exact."""

    @property
    def name(self) -> str:
        """A short name for the counting method, e.g. `o200k_base` or `estimate`."""
        ...

    @property
    def exact(self) -> bool:
        """True when counts match the model's own tokenizer."""
        ...

    @property
    def note(self) -> str:
        """One line saying how counts are made, for the UI."""
        ...

    def count_text(self, text: str) -> int:
        """Tokens of `text` on its own, special-token strings counted as ordinary text."""
        ...


def count_message(counter: TokenCounter, role: str, content: str) -> TokenCount:
    """Tokens one chat message costs in a request: overhead + role + content.

    Count each new message once and keep the number; use `sum_counts` to total them.
    """
    tokens = MESSAGE_OVERHEAD + counter.count_text(role) + counter.count_text(content)
    return TokenCount(tokens, counter.exact)


def sum_counts(counts: Iterable[int]) -> int:
    """Total of already-known counts: no text is tokenized here."""
    return sum(counts)


class TiktokenCounter:
    """Exact counts with a tiktoken encoding."""

    def __init__(self, encoding: Any, *, exact: bool = True, note: str = "") -> None:
        self._encoding = encoding
        self._exact = exact
        self._note = note or f"exact: {encoding.name}"

    @property
    def name(self) -> str:
        return str(self._encoding.name)

    @property
    def exact(self) -> bool:
        return self._exact

    @property
    def note(self) -> str:
        return self._note

    def count_text(self, text: str) -> int:
        # encode_ordinary treats `<|endoftext|>` and friends as plain text instead of raising.
        return len(self._encoding.encode_ordinary(text))


def _char_cost(char: str) -> int:
    """Cost of one character in hundredths of a token (integers, so sums do not drift)."""
    code = ord(char)
    if code < 0x80:
        if char.isalnum():
            return 25
        if char == " ":
            return 5
        if char in "\t\n\r":
            return 30
        return 60
    if 0x0400 <= code <= 0x052F:  # Cyrillic: about 2-3 letters a token
        return 45
    if (
        0x2E80 <= code <= 0x9FFF  # CJK radicals, kana, unified ideographs
        or 0xAC00 <= code <= 0xD7AF  # Hangul
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x2FFFF
    ):
        return 110  # one character is a token or more
    if char.isalpha():  # other scripts: accented Latin, Greek, Arabic…
        return 50
    return 100


class EstimateCounter:
    """A language-aware estimate for when no exact tokenizer is available.

    Costs are per character class: English words come to about four characters a token,
    Cyrillic to two or three, CJK ideographs to a token or more each. Rounded up, so the
    estimate errs towards sending less, not towards a refused request.
    """

    def __init__(self, reason: str = "no tokenizer for this model") -> None:
        self._reason = reason

    @property
    def name(self) -> str:
        return "estimate"

    @property
    def exact(self) -> bool:
        return False

    @property
    def note(self) -> str:
        return f"estimate: {self._reason}"

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        return max(1, -(-sum(_char_cost(char) for char in text) // 100))


def text_key(text: str) -> bytes:
    """A short digest naming `text` among kept counts (the text itself is not stored)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class CachingCounter:
    """Wraps a counter and remembers counts of texts seen recently (system prompt, memory lines).

    `kept` holds counts from earlier runs, by `text_key`: a text found there is not counted
    again, so a start whose plan uses only known texts never waits for the tokenizer.
    Inside `recording()`, every count asked for in that thread is collected for keeping,
    whether it was counted, remembered or kept.
    Should the wrapped counter change its name (a deferred tokenizer that failed to build),
    every count remembered under the old name is forgotten.
    Plans are drawn on the UI thread and in workers at once: the remembered counts are
    behind a lock, while the counting itself runs outside it (tiktoken counts in parallel).
    """

    def __init__(
        self, inner: TokenCounter, size: int = 4096, *, kept: Mapping[bytes, int] | None = None
    ) -> None:
        self._inner = inner
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._size = size
        self._kept = dict(kept or {})
        self._recording = threading.local()
        self._counted_as = inner.name
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def exact(self) -> bool:
        return self._inner.exact

    @property
    def note(self) -> str:
        return self._inner.note

    def count_text(self, text: str) -> int:
        recorded: dict[bytes, int] | None = getattr(self._recording, "counts", None)
        with self._lock:
            if self._inner.name != self._counted_as:
                self._cache.clear()
                self._kept.clear()
                self._counted_as = self._inner.name
            tokens = cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
            elif self._kept:
                tokens = self._kept.get(text_key(text))
        if tokens is None:
            tokens = self._inner.count_text(text)
        if recorded is not None:
            recorded[text_key(text)] = tokens
        if cached is None:
            with self._lock:
                self._cache[text] = tokens
                if len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return tokens

    @contextmanager
    def recording(self) -> Iterator[dict[bytes, int]]:
        """Collect, by `text_key`, every count asked for in this thread inside the block."""
        recorded: dict[bytes, int] = {}
        outer = getattr(self._recording, "counts", None)
        self._recording.counts = recorded
        try:
            yield recorded
        finally:
            self._recording.counts = outer
            if outer is not None:
                outer.update(recorded)

    def keep(self, counts: Mapping[bytes, int]) -> None:
        """Counts now kept elsewhere (in the store) that this counter may use too."""
        with self._lock:
            self._kept.update(counts)

    def build(self) -> None:
        """Build the wrapped counter's tokenizer now, if it is built on first use."""
        if isinstance(self._inner, DeferredCounter):
            self._inner.build()


class DeferredCounter:
    """The best counter for a model, built on first use; its name and note are known before.

    Building a tiktoken encoding takes a few tenths of a second. A caller whose counts are
    all known already (stored with the messages, or kept from earlier runs) never waits for
    it. Should the build fail, this is the labelled estimate from then on, as
    `counter_for_model` would have been.
    """

    def __init__(self, model: str) -> None:
        self._model = model
        self._choice = encoding_for_model(model)
        self._built: TokenCounter | None = None
        self._building = threading.Lock()

    @property
    def is_built(self) -> bool:
        return self._built is not None

    def build(self) -> TokenCounter:
        """The counter itself, built now if it was not yet (thread-safe: built once)."""
        built = self._built
        if built is None:
            with self._building:
                built = self._built
                if built is None:
                    built = self._built = counter_for_model(self._model)
        return built

    @property
    def name(self) -> str:
        return self._built.name if self._built is not None else self._choice.encoding

    @property
    def exact(self) -> bool:
        return self._built.exact if self._built is not None else not self._choice.approximate

    @property
    def note(self) -> str:
        return self._built.note if self._built is not None else _note(self._choice)

    def count_text(self, text: str) -> int:
        return self.build().count_text(text)


def preload_counter(model: str) -> None:
    """Start loading `model`'s tokenizer in a thread; `counter_for_model` then waits for it."""
    preload(encoding_for_model(model).encoding)


def counter_for_model(model: str) -> TokenCounter:
    """The best counter this machine has for `model`: tiktoken, else the estimate (and why)."""
    choice = encoding_for_model(model)
    try:
        encoding = load_encoding(choice.encoding)
    except EncodingUnavailable as exc:
        return EstimateCounter(f"tokenizer data unavailable ({exc})")
    return TiktokenCounter(encoding, exact=not choice.approximate, note=_note(choice))


def _note(choice: EncodingChoice) -> str:
    return choice.note if choice.approximate else f"exact: {choice.note}"
