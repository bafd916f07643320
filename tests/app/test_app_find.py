"""Finding text: the switcher finds conversations by what their messages say, and opens them
at the message found; the find bar (ctrl+f) steps through the hits of the open conversation."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from ctxchat.tui.app import CtxChatApp
from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.find_bar import FindBar

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
    stored = seed(
        app.workspace.store, turns, conversation_id=app.conversation_screen.session.stored_id
    )
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
    store.conversations.rename_conversation(app.conversation_screen.session.stored_id, "Ops notes")
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
    here = app.conversation_screen.session.stored_id
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
        await app.conversation_screen.open_conversation(other)
        await settle(pilot)
        await search_switcher(pilot, "handshake")
        await pilot.press("enter")
        view = app.conversation_screen.conversation_view
        await until(
            pilot,
            lambda: app.conversation_screen.session.stored_id == here and in_view(view, ids[7]),
        )
        assert view.selected_id == ids[7]
        assert app.focused is view
        start, end = view.window
        assert start <= 7 < end and end < len(ids)  # far up: the newest turns are not mounted


def find_bar(app: CtxChatApp) -> FindBar:
    bar = app.conversation_screen.find_bar
    assert bar is not None
    return bar


def highlighted(app: CtxChatApp) -> list[str]:
    """The text the find bar selected in the conversation (Textual's text selection)."""
    found = []
    for widget, selection in app.screen.selections.items():
        text = widget.get_selection(selection)
        if text is not None:
            found.append(text[0])
    return found


async def test_find_steps_through_the_hits_and_wraps(make_app: MakeApp) -> None:
    app, _ = make_app()
    ids = long_conversation(
        app,
        hits={
            5: "A zebra crossing, early on.",
            300: "Halfway: the Zebras are back.",
            591: "Last: one more **zebra** here.",
        },
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.conversation_screen.conversation_view
        await pilot.press("ctrl+f")
        bar = find_bar(app)
        await pilot.press(*"zebra")
        assert bar.count_text == "3 matches"

        async def step(key: str, count: str, offset: int) -> None:
            await pilot.press(key)
            await until(pilot, lambda: bar.count_text == count and in_view(view, ids[offset]))
            assert view.selected_id == ids[offset]
            await until(pilot, lambda: [w.casefold() for w in highlighted(app)][:1] != [])
            assert highlighted(app)[0].casefold().startswith("zebra")

        # Hits count from the newest, where the user is; next goes up (older).
        await step("enter", "1 of 3", 591)
        await step("enter", "2 of 3", 300)  # far up: mounted when it is reached
        await step("f3", "3 of 3", 5)
        await step("enter", "1 of 3", 591)  # wraps round
        await step("shift+enter", "3 of 3", 5)  # and back the other way
        await step("shift+f3", "2 of 3", 300)
        await step("f15", "1 of 3", 591)  # shift+F3 as some terminals send it
        await step("up", "2 of 3", 300)  # the arrows work in every terminal
        await step("down", "1 of 3", 591)
        await step("up", "2 of 3", 300)
        assert app.focused is bar.query_one(Input)  # the box keeps the keys

        await pilot.press(*["backspace"] * 5, *"giraffe")
        assert bar.count_text == "no match"
        await pilot.press("enter")
        assert bar.count_text == "no match" and view.selected_id == ids[300]


async def test_esc_closes_the_bar_and_returns_to_the_composer(make_app: MakeApp) -> None:
    app, _ = make_app()
    long_conversation(app, hits={4: "a zebra"}, total=40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f", *"zebra", "enter")
        bar = find_bar(app)
        await until(pilot, lambda: highlighted(app) != [])
        await pilot.press("escape")
        assert not bar.is_open and not bar.display
        assert app.focused is app.conversation_screen.composer
        assert highlighted(app) == []  # the found word is no longer selected


async def test_typing_in_the_find_bar_reaches_only_the_bar(make_app: MakeApp) -> None:
    app, notes = make_app()
    long_conversation(app, hits={}, total=10)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.conversation_view.focus()
        await pilot.press("up")  # a message selected, as after a click
        await pilot.press("ctrl+f")
        screen = app.screen
        # Letters that are keys elsewhere (composer actions, the switcher's n/r/d/e, …).
        words = "great, thanks! pin edit regenerate nrdeqkx /?"
        await pilot.press(*words)
        await settle(pilot)
        assert find_bar(app).query_text == words
        assert app.screen is screen and app.conversation_screen.composer.text == ""
        assert (
            app.conversation_screen.session.store.messages.count_messages(
                app.conversation_screen.session.stored_id
            )
            == 10
        )
        assert notes.messages == []


async def test_find_is_in_the_command_palette(make_app: MakeApp) -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "conversation: find" in titles
        await app.conversation_screen.run_action("route('conversation.find')")
        box = find_bar(app).query_one(Input)
        await until(pilot, lambda: app.focused is box)
        assert find_bar(app).is_open


async def test_the_find_keys_can_be_remapped(make_app: MakeApp) -> None:
    app, notes = make_app(extra='[keys]\n"conversation.find" = "f10"\n"find.next" = "f12"\n')
    ids = long_conversation(app, hits={2: "a zebra", 6: "two zebras"}, total=10)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert notes.of("warning") == []
        await pilot.press("f10", *"zebra", "f12")
        bar = find_bar(app)
        await until(pilot, lambda: app.conversation_screen.conversation_view.selected_id == ids[6])
        assert bar.count_text == "1 of 2"
