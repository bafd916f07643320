"""Finding text: the switcher finds conversations by what their messages say, and opens them
at the message found; the find bar (ctrl+f) steps through the hits of the open conversation."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import OptionList

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.widgets.conversation import ConversationView

from .app_harness import SIZE, MakeApp, exchange, seed, settle, until

HOSTILE = (
    "We chose [bold red]Kubernetes[/] \x1b[31mover\x1b[0m Nomad\x1b]0;pwned\x07 "
    "for the cluster.\nSecond line."
)


def long_conversation(app: CtxChatApp, *, hits: dict[int, str], total: int = 600) -> list[int]:
    """The open conversation: `total` messages, those at the given offsets saying the given
    text; returns every message id, oldest first."""
    turns = exchange(total // 2)
    for offset, text in hits.items():
        turns[offset] = (turns[offset][0], text)
    stored = seed(app.workspace.store, turns, conversation_id=app.session.conversation)
    return [message.id for message in stored]


def prompt_text(switcher: ConversationSwitcher, conversation_id: int) -> str:
    """What the switcher's row of `conversation_id` says, its lines joined by newlines."""
    options = switcher.query_one(OptionList)
    prompt = options.get_option(str(conversation_id)).prompt
    parts = prompt.renderables if isinstance(prompt, Group) else [prompt]
    return "\n".join(part.plain for part in parts if isinstance(part, Text))


def in_view(view: ConversationView, message_id: int) -> bool:
    item = view.item(message_id)
    if item is None:
        return False
    top, bottom = view.scroll_y, view.scroll_y + view.scrollable_content_region.height
    return item.virtual_region.y < bottom and item.virtual_region.bottom > top


async def search_switcher(pilot: Pilot[Any], query: str) -> ConversationSwitcher:
    await pilot.press("ctrl+l")
    switcher = pilot.app.screen
    assert isinstance(switcher, ConversationSwitcher)
    await pilot.press(*query)
    return switcher


async def test_the_switcher_finds_conversations_by_message_text(make_app: MakeApp) -> None:
    app, _ = make_app()
    store = app.workspace.store
    store.rename_conversation(app.session.conversation, "Ops notes")
    cluster = seed(store, [("user", "Plan?"), ("assistant", HOSTILE)], title="Infra")
    titled = seed(store, [("user", "Nothing relevant")], title="Kubernetes reading list")
    seed(store, [("user", "Kubernetes? No: systemd.")], title="Other")[0]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        switcher = await search_switcher(pilot, "kubern clust")
        # Found by its message (both words there); the title match needs every word too.
        assert switcher.visible_ids == [cluster[0].conversation_id]
        row = prompt_text(switcher, cluster[0].conversation_id)
        # One line of the message, cleaned: markup shown as typed, escape sequences gone.
        assert row.splitlines()[-1] == (
            "  ↳ We chose [bold red]Kubernetes[/] over Nomad for the cluster. Second line."
        )
        assert "\x1b" not in row and "pwned" not in row
        assert "1 message matches" in row
        await pilot.press(*["backspace"] * len(" clust"))
        await until(pilot, lambda: len(switcher.visible_ids) == 3)
        # The title match is listed plainly (it opens as usual); message hits show the hit.
        assert "↳" not in prompt_text(switcher, titled[0].conversation_id)


async def test_opening_a_message_hit_shows_that_message_far_up(make_app: MakeApp) -> None:
    app, _ = make_app()
    here = app.session.conversation
    ids = long_conversation(app, hits={7: "The secret handshake is two taps."})
    other = seed(app.workspace.store, exchange(3), title="Elsewhere")[0].conversation_id
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await pilot.press(*"handshake")
        switcher = app.screen
        assert isinstance(switcher, ConversationSwitcher)
        assert switcher.visible_ids == [here]
        # From another conversation, as a user would come to it.
        await pilot.press("escape", "escape")
        await app.open_conversation(other)
        await settle(pilot)
        await search_switcher(pilot, "handshake")
        await pilot.press("enter")
        view = app.conversation_view
        await until(pilot, lambda: app.session.conversation == here and in_view(view, ids[7]))
        assert view.selected_id == ids[7]
        assert app.focused is view
        start, end = view.window
        assert start <= 7 < end and end < len(ids)  # far up: the newest turns are not mounted
