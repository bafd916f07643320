"""Waiting for a condition instead of for time: the tests' polling helpers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

PATIENCE = 30.0
"""Seconds to wait for a condition: long enough that only a hang runs out of it."""
STEP = 0.01
"""Seconds between two looks at the condition."""


async def until(
    pilot: Pilot[Any], condition: Callable[[], object], timeout: float = PATIENCE
) -> None:
    """Let the app run until `condition()` is true (fails the test after `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout}s: {condition}")
        await pilot.pause(STEP)


async def until_awaited(condition: Callable[[], object], timeout: float = PATIENCE) -> None:
    """`until` without an app: let the event loop run until `condition()` is true (for tests
    of the chat layer's tasks; fails the test after `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout}s: {condition}")
        await asyncio.sleep(STEP)


def until_true(
    condition: Callable[[], object], timeout: float = PATIENCE, what: str | None = None
) -> None:
    """Block until `condition()` is true, for tests of threads and processes; `what` names
    the awaited event in the failure."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout}s: {what or condition}")
        time.sleep(STEP)
