"""Finding text, in pictures: the switcher's message hits and the find bar on a hit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from ctxchat.tui.app import CtxChatApp

from ..waiting import until
from .snapshot_apps import HOUR, NOW, BuildApp, Clock, exchange, reply, say, steady, then

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
WIDE = (200, 50)

HOSTILE_REPLY = (
    "For the cluster we chose [bold red]Kubernetes[/] \x1b[31mover\x1b[0m Nomad\x1b]0;pwned\x07"
    " because the team knows it,\nand the managed offering is cheap enough."
)


def conversations_with_hits(app: CtxChatApp, clock: Clock) -> CtxChatApp:
    """Three conversations: one whose title says Kubernetes, one whose reply does (with markup
    and escape sequences in it), and one that never mentions it."""
    store = app.workspace.store
    clock.now = NOW - 26 * HOUR
    infra = app.conversation_screen.session.stored_id
    store.conversations.rename_conversation(infra, "Infrastructure choices")
    exchange(store, infra, [("user", "Which orchestrator?"), ("assistant", HOSTILE_REPLY)])
    clock.now = NOW - 3 * HOUR
    reading = store.conversations.create_conversation("Kubernetes reading list", model="gpt-4o").id
    exchange(store, reading, [("user", "Books?"), ("assistant", "Start with the docs.")])
    clock.now = NOW - HOUR
    lunch = store.conversations.create_conversation("Lunch", model="gpt-4o").id
    exchange(store, lunch, [("user", "Pizza or pasta?"), ("assistant", "Pasta.")])
    clock.now = NOW
    return app


class TestSwitcherFindsMessages:
    def test_narrow(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """Ctrl+L, `kubern`: the box says `kubern`; `Kubernetes reading list` (the title
        matches, `Kubern` in reverse) on two lines, highlighted; then `Infrastructure
        choices` on three: `2 messages · 58 tokens · … · 1 message matches`, and `↳
        …cluster we chose [bold red]Kubernetes[/] over Nomad becaus…` on one line, cut with
        `…` at the list's edge, `Kubernetes` in reverse, the markup shown as typed, no escape
        sequence acted on (nothing red, no `pwned`). `Lunch` is gone."""
        app = conversations_with_hits(build(), clock)
        run = then("ctrl+l", *"kubern")
        assert snap_compare(app, run_before=run, terminal_size=NARROW)

    def test_wide(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """As narrow, in the 110-column dialog: the hit's line goes on past the new line
        (now a space) to `and the managed o…`."""
        app = conversations_with_hits(build(), clock)
        run = then("ctrl+l", *"kubern")
        assert snap_compare(app, run_before=run, terminal_size=WIDE)


def long_talk(app: CtxChatApp) -> CtxChatApp:
    """Thirty exchanges; two of them mention the staging database."""
    store, conversation = app.workspace.store, app.conversation_screen.session.stored_id
    store.conversations.rename_conversation(conversation, "Release week")
    for turn in range(1, 31):
        if turn in (4, 22):
            say(store, conversation, "user", f"Round {turn}: is the staging database ready?")
        else:
            say(store, conversation, "user", f"Round {turn}: anything new on the release?")
        reply(store, conversation, f"Round {turn}: the checklist is on track.")
    return app


async def find_second_hit(pilot: Pilot[Any]) -> None:
    await steady(pilot)
    await pilot.press("ctrl+f", *"staging", "enter", "enter")
    app = pilot.app
    assert isinstance(app, CtxChatApp)
    bar = app.conversation_screen.find_bar
    assert bar is not None

    def shown() -> bool:
        view = app.conversation_screen.conversation_view
        item = view.item(view.selected_id)
        if item is None or bar.count_text != "2 of 2" or not app.screen.selections:
            return False
        top, bottom = view.scroll_y, view.scroll_y + view.scrollable_content_region.height
        return top <= item.virtual_region.y and item.virtual_region.bottom <= bottom

    await until(pilot, shown)
    await steady(pilot)


class TestFindBar:
    def test_narrow(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """Ctrl+F, `staging`, enter twice: the find bar above the conversation (box with
        `staging`, `2 of 2` beside it); the older hit (`Round 4: is the staging database
        ready?`) selected in the conversation, centred, with `staging` highlighted as
        selected text; the footer offers `↑ Next`, `↓ Previous`, `esc Close`."""
        app = long_talk(build())
        assert snap_compare(app, run_before=find_second_hit, terminal_size=NARROW)

    def test_wide(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """As narrow, at 200x50 beside the context side."""
        app = long_talk(build())
        assert snap_compare(app, run_before=find_second_hit, terminal_size=WIDE)
