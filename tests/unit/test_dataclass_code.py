"""The methods dataclasses generate come from the cache on the next start, and work the same."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxchat.cli.dataclass_code import CodeCache, cache_file, keep_dataclass_code

SOURCE = """
from dataclasses import dataclass, field

@dataclass(frozen=True, slots=True, order=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default=(), compare=False)
"""


@pytest.fixture
def restore_exec() -> Iterator[None]:
    """The test's cache serves dataclasses only while the test runs."""
    before = dataclasses.__dict__.get("exec")
    yield
    if before is None:
        dataclasses.__dict__.pop("exec", None)
    else:
        dataclasses.exec = before  # type: ignore[attr-defined]


def define(cache: CodeCache) -> type:
    """Define the Point class with `cache` serving dataclasses' code."""
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    namespace: dict[str, object] = {"__name__": "points"}
    exec(compile(SOURCE, "points.py", "exec", dont_inherit=True), namespace)
    point = namespace["Point"]
    assert isinstance(point, type)
    return point


def check_behaviour(point: type) -> None:
    a, b = point(1, 2), point(1, 2, ("x",))
    assert a == b and hash(a) == hash(b)  # tags do not compare
    assert point(0) < point(1)
    assert repr(a) == "Point(x=1, y=2, tags=())"
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = 3
    with pytest.raises(TypeError):
        point()


def test_a_second_start_takes_the_code_from_the_cache(tmp_path: Path, restore_exec: None) -> None:
    first = CodeCache(cache_file(tmp_path))
    check_behaviour(define(first))
    assert first.compiled > 0
    first.save()

    second = CodeCache(cache_file(tmp_path))
    check_behaviour(define(second))
    assert second.compiled == 0  # every method came from the file
    assert second.used == first.used


def test_an_unreadable_cache_is_an_empty_one(tmp_path: Path, restore_exec: None) -> None:
    path = cache_file(tmp_path)
    path.write_bytes(b"\x00not marshal at all")
    cache = CodeCache(path)
    check_behaviour(define(cache))
    assert cache.compiled > 0
    cache.save()
    assert CodeCache(path).codes.keys() == cache.codes.keys()


def test_nothing_is_written_when_nothing_was_compiled(tmp_path: Path, restore_exec: None) -> None:
    cache = CodeCache(cache_file(tmp_path))
    define(cache)
    cache.save()
    written = cache.path.stat().st_mtime_ns
    again = CodeCache(cache.path)
    define(again)
    again.save()
    assert cache.path.stat().st_mtime_ns == written
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_a_directory_gone_is_not_made_again(tmp_path: Path, restore_exec: None) -> None:
    gone = tmp_path / "gone" / "cache"
    cache = CodeCache(cache_file(gone))
    define(cache)
    cache.save()
    assert not (tmp_path / "gone").exists()


def test_once_per_process(tmp_path: Path, restore_exec: None) -> None:
    first = keep_dataclass_code(tmp_path / "a")
    assert keep_dataclass_code(tmp_path / "b") is first


def test_a_command_fills_the_cache_and_the_next_one_reads_it(tmp_path: Path) -> None:
    """Two runs of a real command: the first writes the file, the second compiles nothing
    new (the file is not written again) and answers the same."""
    env = {
        **os.environ,
        "CTXCHAT_CACHE_DIR": str(tmp_path / "cache"),
        "CTXCHAT_DATA_DIR": str(tmp_path / "data"),
        "CTXCHAT_CONFIG": str(tmp_path / "config.toml"),
        "HOME": str(tmp_path),
    }
    (tmp_path / "cache").mkdir()

    def run() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "ctxchat.cli.main", "config", "show"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    first = run()
    files = list((tmp_path / "cache").glob("dataclass-code.*"))
    assert len(files) == 1
    written = files[0].stat().st_mtime_ns
    assert run() == first
    assert files[0].stat().st_mtime_ns == written
