"""The session feeds memory's time to assembly: dates when asked, superseded entries left out."""

from __future__ import annotations

import dataclasses
from datetime import date

from ctxchat.chat.context_planning import local_zone
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import send_message
from ctxchat.config.settings import MemorySettings
from ctxchat.core.budget import Layer
from ctxchat.core.memory import MemoryKind, day
from ctxchat.core.plan import Reason
from ctxchat.testing.server import ScriptedModelServer


async def test_dates_on_send_todays_date_and_each_entrys_day(
    session: ChatSession, server: ScriptedModelServer
) -> None:
    session.store.memory.add_memory(MemoryKind.FACT, "The database is SQLite.")
    assert "Today's date" not in session.plan("Hi").messages[1].content
    session.settings = dataclasses.replace(session.settings, memory=MemorySettings(dates=True))
    session.forget_memory()
    server.script("Noted.")
    [event async for event in send_message(session, "Which database?")]
    today = day(session.store.now(), local_zone())
    assert isinstance(today, date)
    memory = server.requests[-1]["messages"][1]["content"]
    assert f"Today's date: {today.isoformat()}.\n" in memory
    assert f"- [fact, as of {today.isoformat()}] The database is SQLite.\n" in memory


def test_a_superseded_entry_is_left_out_and_never_recalled(session: ChatSession) -> None:
    old = session.store.memory.add_memory(
        MemoryKind.FACT, "The database is MySQL 8.", key="database"
    )
    new = session.store.memory.add_memory(
        MemoryKind.FACT, "The database is PostgreSQL.", key="database"
    )
    session.forget_memory()
    plan = session.plan("Which database? MySQL or PostgreSQL?")
    layer = plan.layer(Layer.MEMORY)
    assert [item.ref for item in layer.items] == [new.ref]
    (left,) = layer.left_out
    assert (left.ref, left.reason) == (old.ref, Reason.SUPERSEDED)
    assert left.detail.startswith(f"superseded by {new.ref} on ")
    assert old.ref not in {item.ref for item in plan.layer(Layer.RECALL).items}
