"""Parsed tokenizer ranks are cached, checked, and rebuilt when the cache is bad."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxchat.core import encodings, tokens

from ..waiting import PATIENCE

SPEC = encodings.SPECS["cl100k_base"]


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    encodings.use_cache_dir(tmp_path / "cache")
    try:
        yield tmp_path / "cache"
    finally:
        encodings.use_cache_dir(None)


def parsed() -> dict[bytes, int]:
    path = encodings.candidate_files(SPEC.name)[0]
    return encodings.parse_ranks(encodings.read_verified(path, SPEC.sha256))


def test_every_spec_states_how_many_ranks_its_data_holds() -> None:
    for spec in encodings.SPECS.values():
        path = encodings.candidate_files(spec.name)[0]
        assert len(encodings.parse_ranks(encodings.read_verified(path, spec.sha256))) == spec.ranks


def test_parsed_ranks_are_cached_and_read_back_without_the_data_file(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = encodings.packaged_ranks(SPEC)
    assert first == parsed()
    cached = encodings.cache_file(SPEC)
    assert cached is not None and cached.parent == cache / "encodings"
    assert cached.is_file()
    assert not list(cached.parent.glob("*.tmp"))
    monkeypatch.setattr(encodings, "candidate_files", lambda name: [])
    assert encodings.packaged_ranks(SPEC) == first


def test_without_a_cache_dir_nothing_is_written(tmp_path: Path) -> None:
    encodings.use_cache_dir(None)
    assert encodings.cache_file(SPEC) is None
    assert encodings.packaged_ranks(SPEC) == parsed()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: blob[: len(blob) // 2],  # cut short
        lambda blob: blob[:40] + bytes([blob[40] ^ 0xFF]) + blob[41:],  # one byte flipped
        lambda blob: b"",  # empty
    ],
    ids=["truncated", "flipped", "empty"],
)
def test_a_damaged_cache_is_ignored_and_rewritten(
    cache: Path, damage: Callable[[bytes], bytes]
) -> None:
    encodings.packaged_ranks(SPEC)
    path = encodings.cache_file(SPEC)
    assert path is not None
    good = path.read_bytes()
    path.write_bytes(damage(good))
    assert encodings.read_cached_ranks(SPEC) is None
    assert encodings.packaged_ranks(SPEC) == parsed()
    assert path.read_bytes() == good


def test_a_well_formed_cache_with_the_wrong_number_of_ranks_is_ignored(cache: Path) -> None:
    encodings.write_cached_ranks(SPEC, {b"a": 0, b"b": 1})
    assert encodings.read_cached_ranks(SPEC) is None
    assert encodings.packaged_ranks(SPEC) == parsed()


def test_an_unwritable_cache_dir_costs_only_the_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache directory should be")
    encodings.use_cache_dir(blocker)
    try:
        assert encodings.packaged_ranks(SPEC) == parsed()
    finally:
        encodings.use_cache_dir(None)
    assert blocker.read_text().startswith("a file")


def test_a_preload_builds_once_and_a_caller_waits_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    building = threading.Event()
    original = encodings.packaged_ranks

    def watched(spec: encodings.EncodingSpec) -> dict[bytes, int]:
        built.append(spec.name)
        building.set()
        return original(spec)  # reading and checking the ranks: the caller arrives meanwhile

    monkeypatch.setattr(encodings, "packaged_ranks", watched)
    encodings.forget_built()
    try:
        encodings.preload("cl100k_base")
        assert building.wait(PATIENCE)
        first = encodings.load_encoding("cl100k_base")
        assert encodings.load_encoding("cl100k_base") is first
        assert first.encode("hello world") == [15339, 1917]
        assert built == ["cl100k_base"]
    finally:
        encodings.forget_built()


def test_preload_counter_starts_the_models_own_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(tokens, "preload", started.append)
    tokens.preload_counter("gpt-4o")
    tokens.preload_counter("gpt-4")
    tokens.preload_counter("llama3.1:8b")
    assert started == ["o200k_base", "cl100k_base", "cl100k_base"]


def test_a_cache_that_checks_out_but_does_not_build_is_dropped_and_rebuilt(cache: Path) -> None:
    # Right checksum and count, wrong types: tiktoken refuses it.
    wrong_types: dict[Any, int] = {str(rank): rank for rank in range(SPEC.ranks)}
    encodings.write_cached_ranks(SPEC, wrong_types)
    assert encodings.read_cached_ranks(SPEC) is not None
    encodings.forget_built()
    try:
        built = encodings.load_encoding(SPEC.name)
        assert built.encode("hello world") == [15339, 1917]
    finally:
        encodings.forget_built()
    assert encodings.read_cached_ranks(SPEC) == parsed()


def test_half_written_files_a_crash_left_are_swept_but_fresh_ones_kept(cache: Path) -> None:
    target = encodings.cache_file(SPEC)
    assert target is not None
    target.parent.mkdir(parents=True, exist_ok=True)
    crashed = target.with_name(f"{target.name}.4242.tmp")
    writing = target.with_name(f"{target.name}.4343.tmp")  # another process, right now
    for partial in (crashed, writing):
        partial.write_bytes(b"half")
    old = time.time() - encodings.STALE_PARTIAL - 60
    os.utime(crashed, (old, old))
    encodings.write_cached_ranks(SPEC, {b"a": 0})
    assert not crashed.exists()
    assert writing.exists()
    assert target.exists()
