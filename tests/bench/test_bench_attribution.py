"""bench/attribution.py: its cases name real sources, and it scores every use it lists."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "attribution.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_attribution", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_expected_use_names_a_source_of_the_request(bench: ModuleType) -> None:
    refs = {source.ref for source in bench.SOURCES}
    assert all(case.used <= refs for case in bench.CASES)
    assert any(not case.used for case in bench.CASES)  # replies using nothing are scored too


def test_the_score_accounts_for_every_use(bench: ModuleType) -> None:
    result = bench.score()
    assert result.true_positive + result.false_negative == sum(len(c.used) for c in bench.CASES)
    assert 0 <= result.precision <= 1 and 0 <= result.recall <= 1
