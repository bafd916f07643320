"""bench/summary_loss.py: its corpora plant what they say, and every planted fact is scored."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "summary_loss.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_summary_loss", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def corpora(bench: ModuleType) -> list[Any]:
    return [bench.CASES, bench.summary_loss_heldout.CASES]


def test_each_planted_fact_is_in_its_turn_and_drops_are_planted(bench: ModuleType) -> None:
    for cases in corpora(bench):
        for case in cases:
            texts = {fact.text for fact in case.planted}
            assert case.dropped <= texts, case.name
            for fact in case.planted:
                assert fact.text in case.turns[fact.turn], (case.name, fact.text)
            # A summary drops some facts and keeps others: both figures are measured.
            assert case.dropped and texts - case.dropped, case.name


def test_every_planted_fact_is_scored_once(bench: ModuleType) -> None:
    for cases in corpora(bench):
        result = bench.score(cases)
        assert result.dropped == sum(len(case.dropped) for case in cases)
        assert result.dropped + result.kept == sum(len(case.planted) for case in cases)


def test_the_held_out_figures_stay_where_they_were_measured(bench: ModuleType) -> None:
    result = bench.score(bench.summary_loss_heldout.CASES)
    assert result.recall >= 0.9
    assert result.false_alarms <= 0.05
