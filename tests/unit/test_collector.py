"""Holding off the cycle collector's full passes."""

from __future__ import annotations

import gc

import pytest

from ctxchat.tui.collector import HELD, full_collections_held


def test_a_hold_stops_full_passes_only_and_restores_the_thresholds() -> None:
    before = gc.get_threshold()
    with full_collections_held():
        assert gc.get_threshold() == (before[0], before[1], HELD)
        assert gc.isenabled()
    assert gc.get_threshold() == before


def test_holds_nest_and_the_last_one_out_restores() -> None:
    before = gc.get_threshold()
    outer = full_collections_held()
    outer.__enter__()
    with full_collections_held():
        pass
    assert gc.get_threshold()[2] == HELD  # the outer hold still stands
    outer.__exit__(None, None, None)
    assert gc.get_threshold() == before


def test_a_failure_inside_the_hold_still_restores() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), full_collections_held():
        raise RuntimeError("boom")
    assert gc.get_threshold() == before
