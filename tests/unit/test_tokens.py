"""Token counting: tiktoken from packaged data, the estimate, and the model table."""

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from ctxchat.core import encodings, tokens
from ctxchat.core.tokens import (
    CachingCounter,
    DeferredCounter,
    EstimateCounter,
    TokenCount,
    count_message,
    counter_for_model,
    encoding_for_model,
    sum_counts,
    text_key,
)

ENGLISH = "We decided to use PostgreSQL for the main database."
RUSSIAN = "Мы решили использовать PostgreSQL для основной базы данных."
CHINESE = "我们决定使用PostgreSQL作为主数据库。"


@pytest.mark.parametrize(
    ("model", "encoding", "approximate"),
    [
        ("gpt-4o", "o200k_base", False),
        ("gpt-4o-mini", "o200k_base", False),
        ("openai/gpt-4.1", "o200k_base", False),
        ("GPT-5", "o200k_base", False),
        ("o3-mini", "o200k_base", False),
        ("gpt-4", "cl100k_base", False),
        ("gpt-4-turbo", "cl100k_base", False),
        ("gpt-3.5-turbo", "cl100k_base", False),
        ("llama3.1:8b", "cl100k_base", True),
        ("gemma-3-270m", "cl100k_base", True),
    ],
)
def test_model_to_encoding(model: str, encoding: str, approximate: bool) -> None:
    choice = encoding_for_model(model)
    assert (choice.encoding, choice.approximate) == (encoding, approximate)


def test_unknown_model_is_labelled_approximate() -> None:
    counter = counter_for_model("qwen2.5:7b")
    assert counter.name == "cl100k_base"
    assert counter.exact is False
    assert counter.note == (
        "approximate: qwen2.5:7b is not an OpenAI model, counted with cl100k_base"
    )


@pytest.mark.parametrize(
    ("model", "text", "tokens"),
    [
        ("gpt-4o", ENGLISH, 11),
        ("gpt-4o", RUSSIAN, 10),
        ("gpt-4o", CHINESE, 10),
        ("gpt-4", ENGLISH, 10),
        ("gpt-4", RUSSIAN, 17),
        ("gpt-4", CHINESE, 12),
    ],
)
def test_exact_counts_with_tiktoken(model: str, text: str, tokens: int) -> None:
    counter = counter_for_model(model)
    assert counter.exact is True
    assert counter.count_text(text) == tokens


@pytest.mark.parametrize(("text", "tokens"), [(ENGLISH, 12), (RUSSIAN, 22), (CHINESE, 17)])
def test_estimate_counts(text: str, tokens: int) -> None:
    assert EstimateCounter().count_text(text) == tokens


def test_estimate_charges_more_per_character_for_cyrillic_and_cjk() -> None:
    estimate = EstimateCounter()
    latin = estimate.count_text("abcdefghij" * 10)
    cyrillic = estimate.count_text("абвгдежзий" * 10)
    cjk = estimate.count_text("数据库上下文管理记忆" * 10)
    assert latin < cyrillic < cjk
    assert (latin, cyrillic, cjk) == (25, 45, 110)


def test_estimate_never_undercounts_these_samples() -> None:
    exact = counter_for_model("gpt-4o")
    for text in (ENGLISH, RUSSIAN, CHINESE):
        assert EstimateCounter().count_text(text) >= exact.count_text(text)


def test_special_token_strings_count_as_text() -> None:
    counter = counter_for_model("gpt-4o")
    assert counter.count_text("<|endoftext|>") == 7
    assert counter.count_text("<|fim_prefix|><|endofprompt|>") == 12


def test_message_overhead_is_three_plus_role() -> None:
    counter = counter_for_model("gpt-4o")
    assert count_message(counter, "user", "Hello") == TokenCount(5, True)
    assert count_message(EstimateCounter(), "user", "Hello") == TokenCount(6, False)


def test_sum_counts_adds_cached_numbers_only() -> None:
    assert sum_counts([5, 7, 11]) == 23


def test_caching_counter_counts_each_text_once() -> None:
    calls: list[str] = []

    class Recording(EstimateCounter):
        def count_text(self, text: str) -> int:
            calls.append(text)
            return super().count_text(text)

    counter = CachingCounter(Recording(), size=2)
    assert counter.count_text("one") == counter.count_text("one")
    counter.count_text("two")
    counter.count_text("three")  # evicts "one"
    counter.count_text("one")
    assert calls == ["one", "two", "three", "one"]


def test_falls_back_to_labelled_estimate_without_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encodings, "candidate_files", lambda name: [])
    monkeypatch.setattr(encodings, "_cache_dir", None)  # no parsed copy from another test
    encodings.forget_built()
    try:
        counter = counter_for_model("gpt-4o")
    finally:
        encodings.forget_built()
    assert counter.exact is False
    assert counter.name == "estimate"
    assert counter.note == (
        "estimate: tokenizer data unavailable (o200k_base: no package carrying its data "
        "file is installed)"
    )


def test_a_data_file_with_the_wrong_hash_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "o200k_base.tiktoken"
    bad.write_bytes(b"aGVsbG8= 0\n")
    monkeypatch.setattr(encodings, "candidate_files", lambda name: [bad])
    monkeypatch.setattr(encodings, "_cache_dir", None)
    encodings.forget_built()
    try:
        counter = counter_for_model("gpt-4o")
    finally:
        encodings.forget_built()
    assert counter.name == "estimate"
    assert "has SHA-256" in counter.note
    assert "expected 446a9538cb6c" in counter.note


def test_packaged_data_matches_tiktoken_hashes() -> None:
    for name, spec in encodings.SPECS.items():
        files = encodings.candidate_files(name)
        assert files, f"no packaged data file for {name}"
        encodings.read_verified(files[0], spec.sha256)


def test_a_deferred_counter_names_its_encoding_before_building_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[str] = []

    def load(name: str) -> Any:
        built.append(name)
        return _loaded(name)

    monkeypatch.setattr(tokens, "load_encoding", load)
    exact = DeferredCounter("gpt-4o")
    approximate = DeferredCounter("qwen2.5:7b")
    assert (exact.name, exact.exact, exact.note) == (
        "o200k_base",
        True,
        "exact: o200k_base, the encoding of gpt-4o",
    )
    assert (approximate.name, approximate.exact) == ("cl100k_base", False)
    assert approximate.note == (
        "approximate: qwen2.5:7b is not an OpenAI model, counted with cl100k_base"
    )
    assert built == [] and not exact.is_built
    assert exact.count_text(ENGLISH) == 11
    assert built == ["o200k_base"] and exact.is_built
    exact.count_text(RUSSIAN)
    assert built == ["o200k_base"]  # built once


def _loaded(name: str) -> object:
    return encodings.load_encoding(name)


def test_a_deferred_counter_whose_tokenizer_fails_becomes_the_estimate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(encodings, "candidate_files", lambda name: [])
    monkeypatch.setattr(encodings, "_cache_dir", None)  # no parsed copy from another test
    encodings.forget_built()
    try:
        counter = DeferredCounter("gpt-4o")
        assert counter.name == "o200k_base"
        assert counter.count_text(ENGLISH) == EstimateCounter().count_text(ENGLISH)
    finally:
        encodings.forget_built()
    assert (counter.name, counter.exact) == ("estimate", False)
    assert counter.note.startswith("estimate: tokenizer data unavailable (o200k_base:")


class _Recording(EstimateCounter):
    def __init__(self, name: str = "o200k_base") -> None:
        super().__init__()
        self.calls: list[str] = []
        self.counted_as = name

    @property
    def name(self) -> str:
        return self.counted_as

    def count_text(self, text: str) -> int:
        self.calls.append(text)
        return super().count_text(text)


def test_kept_counts_are_used_without_counting() -> None:
    inner = _Recording()
    counter = CachingCounter(inner, kept={text_key("You are terse."): 4})
    assert counter.count_text("You are terse.") == 4
    assert counter.count_text("Something new") == EstimateCounter().count_text("Something new")
    assert inner.calls == ["Something new"]


def test_recording_collects_every_count_asked_for_in_its_thread() -> None:
    inner = _Recording()
    counter = CachingCounter(inner, kept={text_key("kept"): 9})
    counter.count_text("seen before")
    elsewhere: list[int] = []
    with counter.recording() as counted:
        counter.count_text("kept")  # from the kept counts
        counter.count_text("seen before")  # from the cache
        tokens = counter.count_text("fresh text")  # counted
        thread = threading.Thread(target=lambda: elsewhere.append(counter.count_text("other")))
        thread.start()
        thread.join()
    counter.count_text("after the block")
    assert counted == {
        text_key("kept"): 9,
        text_key("seen before"): counter.count_text("seen before"),
        text_key("fresh text"): tokens,
    }
    inner.calls.clear()
    assert CachingCounter(inner, kept=counted).count_text("fresh text") == tokens
    assert inner.calls == []


def test_counts_made_under_another_name_are_forgotten() -> None:
    inner = _Recording()
    counter = CachingCounter(inner, kept={text_key("kept"): 99})
    counter.count_text("cached")
    inner.counted_as = "estimate"  # a deferred tokenizer that failed to build
    assert counter.count_text("kept") == EstimateCounter().count_text("kept")
    assert counter.count_text("cached") == EstimateCounter().count_text("cached")
    assert inner.calls == ["cached", "kept", "cached"]


def test_text_keys_tell_texts_apart() -> None:
    assert text_key("a") != text_key("b") and text_key("a") == text_key("a")
    assert len(text_key("x" * 10_000)) == 16
    assert text_key("\ud800 lone surrogate") != text_key("? lone surrogate")


ROUNDS = 100


def test_threads_counting_at_once_get_the_counts_one_thread_gets() -> None:
    """Plans are drawn on the UI thread and in workers (a huge draft, recall) at once, all
    through one session's counter: counting together never loses or mixes up a count."""
    texts = [f"{ENGLISH} {n} {RUSSIAN[: n % 40]} {CHINESE * (n % 3)}" for n in range(12)]
    alone = [counter_for_model("gpt-4o").count_text(text) for text in texts]
    # A tiny cache: threads keep evicting what the others just looked up.
    shared = CachingCounter(counter_for_model("gpt-4o"), size=2)
    start = threading.Barrier(6)
    results: dict[int, list[int]] = {}
    failures: list[BaseException] = []

    def count(worker: int) -> None:
        start.wait()
        order = texts[worker:] + texts[:worker]  # each thread meets the texts in its own order
        try:
            counted = [shared.count_text(text) for text in order * ROUNDS]
        except BaseException as error:  # the failure is the finding
            failures.append(error)
            return
        results[worker] = counted

    threads = [threading.Thread(target=count, args=(n,)) for n in range(6)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns between almost every bytecode
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    for worker, counted in results.items():
        assert counted == (alone[worker:] + alone[:worker]) * ROUNDS
