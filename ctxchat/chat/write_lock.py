"""A turn begins when the database takes writes: while another program holds its write lock,
the turn waits without stopping the app, and says so after a second."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass

from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import TurnEvent
from ctxchat.store import Store

__all__ = ["LOCKED_NOTICE", "DatabaseWait", "until_writable", "when_writable"]

NOTICE_AFTER = 1.0
"""Seconds a write waits for the lock before it is said (shorter waits go unnoticed)."""
LOOK_EVERY = 0.1
"""Seconds between two looks at the lock while it is held."""
LOCKED_NOTICE = "The database is locked by another program; waiting…"


@dataclass(frozen=True, slots=True)
class DatabaseWait:
    """The turn waits for another program's write lock (`waiting`), or no longer does."""

    waiting: bool


async def until_writable(store: Store) -> AsyncGenerator[bool, None]:
    """Return once the database takes writes. While another program holds its write lock,
    wait, the event loop running on (a write would block it up to the busy timeout): True
    once it has waited `NOTICE_AFTER` seconds, then False when the lock is free."""
    started = time.monotonic()
    said = False
    while not store.takes_writes():
        if not said and time.monotonic() - started >= NOTICE_AFTER:
            said = True
            yield True
        await asyncio.sleep(LOOK_EVERY)
    if said:
        yield False


async def when_writable(
    session: ChatSession, turn: Callable[[ChatSession], AsyncGenerator[TurnEvent, None]]
) -> AsyncGenerator[TurnEvent | DatabaseWait, None]:
    """`turn(session)` (`send_message`, `regenerate`, …), once the database takes writes:
    nothing is stored before, so a turn stopped while it waits leaves its text to the
    draft."""
    async with contextlib.aclosing(until_writable(session.store)) as waits:
        async for waiting in waits:
            yield DatabaseWait(waiting)
    async with contextlib.aclosing(turn(session)) as events:
        async for event in events:
            yield event
