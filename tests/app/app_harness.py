"""Helpers for the app tests: a notification recorder, seeded conversations, waiting on state."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from ctxchat.core.budget import Layer
from ctxchat.core.plan import ContextPlan
from ctxchat.core.tokens import count_message, counter_for_model
from ctxchat.store import Store, StoredMessage
from ctxchat.testing.server import Fault, ScriptedModelServer
from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.widgets.layer_panel import LayerPanel

from ..waiting import until as until  # the app tests import it with the helpers below

COUNTER = counter_for_model("gpt-4o")
# Just wide enough for the context side (shown from 110 columns); small screens draw fast.
SIZE = (112, 28)

Cli = Callable[[Path, str], Callable[..., Awaitable[dict[str, Any]]]]
"""The `cli` fixture: `cli(home, config)` gives `run(*args)`, which runs `ctxchat ARGS` (with
the home's dirs and test key) in a thread and returns its JSON output."""

MakeApp = Callable[..., tuple[CtxChatApp, "Notes"]]
"""The `make_app` fixture: builds the app (keywords: `extra` TOML, `context_window`,
`output_reserve`, command-line options) and returns it with its `Notes`."""


@dataclass
class Notes:
    """Every `notify` call of one app, as (message, severity), in order."""

    calls: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def attach(cls, app: CtxChatApp) -> Notes:
        notes = cls()
        original = app.notify

        def record(message: str, **options: Any) -> None:
            notes.calls.append((str(message), str(options.get("severity", "information"))))
            original(message, **options)

        app.notify = record
        return notes

    def of(self, severity: str) -> list[str]:
        return [message for message, level in self.calls if level == severity]

    @property
    def messages(self) -> list[str]:
        return [message for message, _ in self.calls]


def seed(
    store: Store,
    turns: Sequence[tuple[str, str]],
    *,
    title: str | None = None,
    conversation_id: int | None = None,
) -> list[StoredMessage]:
    """Store (role, text) turns in a conversation (a new one unless given), counted for gpt-4o."""
    if conversation_id is None:
        conversation_id = store.conversations.create_conversation(
            title, model="gpt-4o", profile="test"
        ).id
    return [
        store.messages.add_message(
            conversation_id,
            role,
            text,
            tokens=count_message(COUNTER, role, text).tokens,
            exact=True,
            encoding=COUNTER.name,
            model="gpt-4o",
        )
        for role, text in turns
    ]


def exchange(count: int, topic: str = "the database") -> list[tuple[str, str]]:
    """`count` question/answer pairs about `topic`, numbered."""
    turns = []
    for number in range(1, count + 1):
        turns.append(("user", f"Question {number} about {topic}?"))
        turns.append(("assistant", f"Answer {number} about {topic}."))
    return turns


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for every worker (replies, summaries, plans in a thread) and the messages after."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def typed(pilot: Pilot[Any], text: str, *, keys: bool = False) -> ContextPlan:
    """Write `text` into the composer (pasted, or key by key with `keys`) and wait for the
    live plan to hold it."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    app.conversation_screen.composer.focus()
    if keys:
        await pilot.press(*text)
    else:
        app.conversation_screen.composer.insert(text)
    expected = app.conversation_screen.session.count("user", app.conversation_screen.composer.text)
    await until(pilot, lambda: input_tokens(app.conversation_screen.last_plan) == expected)
    assert app.conversation_screen.last_plan is not None
    return app.conversation_screen.last_plan


async def stalled_reply(pilot: Pilot[Any], server: ScriptedModelServer) -> None:
    """Send a message whose reply stops after its first two chunks ("Partial answ") and
    wait until they are shown, the reply still streaming."""
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    server.fail_next(Fault.STALL, after=2, seconds=30)
    server.script("Partial answer that never ends.")
    await typed(pilot, "Tell me everything.")
    await pilot.press("enter")
    await until(pilot, lambda: shown_messages(app)[-1:] == [("assistant", "Partial answ")])


def input_tokens(plan: ContextPlan | None) -> int | None:
    """The tokens of the new message a plan holds (0 without one, None without a plan)."""
    if plan is None:
        return None
    return sum(item.tokens for item in plan.layer(Layer.INPUT).items if item.ref == "input")


def input_panel_tokens(app: CtxChatApp) -> int:
    """The token count the input layer's panel shows in its header (`▾ input · 8 tokens · …`)."""
    panel = app.query_one("#layer-input", LayerPanel)
    header = str(panel.query_one(".layer-panel--header", Static).render())
    found = re.match(r"[▾▸] input · ([\d,]+) tokens · ", header)
    assert found is not None, header
    return int(found.group(1).replace(",", ""))


def memory_refs(plan: ContextPlan | None) -> list[str]:
    assert plan is not None
    return [item.ref for item in plan.layer(Layer.MEMORY).items]


def status_line(app: CtxChatApp) -> str:
    return str(app.query_one("#status-line", Static).render())


def shown_messages(app: CtxChatApp) -> list[tuple[str, str]]:
    """(role, text) of the turns mounted in the conversation pane."""
    return [
        (item.view.role, item.view.content)
        for item in app.conversation_screen.conversation_view.items
    ]


def key_event(character: str) -> events.Key:
    """The key event a terminal sends for `character` ("\r" is Enter)."""
    if character in ("\r", "\n"):
        return events.Key("enter", "\r")
    if character.isalnum():
        return events.Key(character, character)
    name = "space" if character == " " else unicodedata.name(character).lower()
    return events.Key(name.replace(" ", "_").replace("-", "_"), character)


def burst(pilot: Pilot[Any], text: str) -> None:
    """Send `text` as keys all at once, faster than the app handles them (no waiting
    between keys, as type-ahead over SSH or a text expander does)."""
    app = pilot.app
    for character in text:
        event = key_event(character)
        event.set_sender(app)
        app.post_message(event)
