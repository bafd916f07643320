"""Where memory entries apply, in pictures: an entry switched off for one conversation."""

from __future__ import annotations

from collections.abc import Callable

from ctxchat.core.memory import MemoryKind
from ctxchat.tui.app import CtxChatApp

from .snapshot_apps import BuildApp, exchange, say, then

SnapCompare = Callable[..., bool]
SMALL = (80, 24)
LARGE = (160, 45)


def garden_with_global_memory(app: CtxChatApp) -> CtxChatApp:
    """The open conversation "Garden" and three global entries."""
    store = app.workspace.store
    garden = app.conversation_screen.session.stored_id
    store.conversations.rename_conversation(garden, "Garden")
    exchange(store, garden, [("user", "When to plant tulips?"), ("assistant", "In autumn.")])
    store.memory.add_memory(MemoryKind.FACT, "The soil is heavy clay.", importance=7)
    store.memory.add_memory(MemoryKind.PREFERENCE, "Prefers native plants.")
    store.memory.add_memory(MemoryKind.CONSTRAINT, "No pesticides.", importance=8)
    return app


class TestMemorySwitchedOffHere:
    def test_large(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """F6, down, ctrl+d: the preference (highlighted) reads `global · ○ off here (amber)
        · importance 5`, then `Prefers native plants.` and `switched off for this
        conversation` in italics; the header says `3 entries · 2 in context (35 tokens)`; the
        memory layer panel lists memory:2 left out with the same reason; the footer has
        `^d Off/on here`."""
        app = garden_with_global_memory(build())
        keys = ("f6", "down", "ctrl+d")
        assert snap_compare(app, run_before=then(*keys), terminal_size=LARGE)

    def test_small(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The same at 80x24 with the context side shown (ctrl+b)."""
        app = garden_with_global_memory(build())
        keys = ("f6", "down", "ctrl+d")
        assert snap_compare(app, run_before=then(*keys, context=True), terminal_size=SMALL)


def garden_with_many_entries(app: CtxChatApp) -> CtxChatApp:
    """The open conversation "Garden" with 25 entries: 18 current (one a hypothesis
    unconfirmed for 2 turns, some pinned from or extracted out of its messages, two its own),
    4 superseded by newer versions on their key, and 3 excluded."""
    store = app.workspace.store
    garden = app.conversation_screen.session.stored_id
    store.conversations.rename_conversation(garden, "Garden")
    store.memory.add_memory(
        MemoryKind.HYPOTHESIS, "The roses fail because of the north wind.", importance=6
    )
    asked = say(store, garden, "user", "When to plant tulips?")
    answered = say(store, garden, "assistant", "In autumn.")
    exchange(store, garden, [("user", "And daffodils?"), ("assistant", "Also in autumn.")])
    for number in range(1, 5):
        store.memory.add_memory(
            MemoryKind.FACT, f"Bed {number} was dug in spring.", key=f"bed {number}"
        )
        store.memory.add_memory(
            MemoryKind.FACT, f"Bed {number} was dug again in autumn.", key=f"bed {number}"
        )
    store.memory.add_memory(
        MemoryKind.FACT, "Tulips go in in autumn.", source=f"message:{answered.id}"
    )
    store.memory.add_memory(
        MemoryKind.FACT,
        "Daffodils go in in autumn too.",
        source=f"messages:{asked.id}-{answered.id}",
        conversation_id=garden,
    )
    for number, text in enumerate(
        (
            "The soil is heavy clay.",
            "The garden faces south-west.",
            "Rain water is kept in two barrels.",
            "The hedge is hawthorn.",
            "Compost is ready each March.",
            "The shed holds the tools.",
            "The apple tree is a Bramley.",
            "Slugs eat the lettuces.",
            "The lawn is mown weekly in summer.",
        )
    ):
        store.memory.add_memory(MemoryKind.FACT, text, importance=3 + number % 6)
    store.memory.add_memory(MemoryKind.CONSTRAINT, "No pesticides.", importance=8, pinned=True)
    store.memory.add_memory(MemoryKind.PREFERENCE, "Prefers native plants.", conversation_id=garden)
    for text in ("Likes bright red tulips.", "Wants a pond.", "Grows potatoes."):
        store.memory.add_memory(MemoryKind.PREFERENCE, text, enabled=False)
    return app


MANY = "[memory]\nhypothesis_turns = 2\n"


class TestMemoryPanelWithManyEntries:
    def test_small_all_shown(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """80x24, ctrl+b, F6: the memory panel takes most of the side while it has focus
        (the layer panels above shrink to a few lines); its header `memory · 25 entries · 18
        in context (259 tokens) · mode personalization` on top, the highlighted hypothesis
        whole with its amber `⚑ unconfirmed for 2 turns: …` line, the next entry below it,
        a scrollbar at the right, and at the bottom the line about the highlighted entry
        (`memory:1: typed by hand · not used in the last 2 replies (estimate)`)."""
        app = garden_with_many_entries(build(extra=MANY))
        assert snap_compare(app, run_before=then("f6", context=True), terminal_size=SMALL)

    def test_small_left_out_hidden(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """As above after shift+left: the header says `25 entries · 7 hidden` (amber), and the
        entry under the hypothesis is bed 1 dug again in autumn (the superseded spring entry
        is hidden)."""
        app = garden_with_many_entries(build(extra=MANY))
        keys = ("f6", "shift+left")
        assert snap_compare(app, run_before=then(*keys, context=True), terminal_size=SMALL)

    def test_large_all_shown(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """160x45, F6: the header, then the entries from the flagged hypothesis on with
        superseded ones greyed (`superseded by memory:3 on 2025-01-06`), a scrollbar at
        the right of the list, and the line about the highlighted entry at the bottom."""
        app = garden_with_many_entries(build(extra=MANY))
        assert snap_compare(app, run_before=then("f6"), terminal_size=LARGE)

    def test_large_left_out_hidden(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """160x45, F6, shift+left: `25 entries · 7 hidden`; the list holds only entries in
        context (no `superseded by` or `excluded by you` line), the hypothesis highlighted."""
        app = garden_with_many_entries(build(extra=MANY))
        assert snap_compare(app, run_before=then("f6", "shift+left"), terminal_size=LARGE)

    def test_large_scrolled_to_the_end(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """160x45, F6, end: the list scrolled to its end, the excluded `Grows potatoes.`
        highlighted with `excluded by you`, the header still on top and `memory:25: typed by
        hand` at the bottom."""
        app = garden_with_many_entries(build(extra=MANY))
        assert snap_compare(app, run_before=then("f6", "end"), terminal_size=LARGE)


def allotment_project(app: CtxChatApp) -> CtxChatApp:
    """ "Garden" in the project "Allotment" with an entry of its own there, "Trip to Porto" in
    none, and a second project "Kitchen" with no conversation yet."""
    store = app.workspace.store
    garden_with_global_memory(app)
    garden = app.conversation_screen.session.stored_id
    allotment = store.projects.create_project("Allotment").id
    store.projects.create_project("Kitchen")
    store.projects.move_to_project(garden, allotment)
    store.memory.add_memory(MemoryKind.FACT, "The allotment is plot 14.", project_id=allotment)
    trip = store.conversations.create_conversation("Trip to Porto", model="gpt-4o").id
    exchange(store, trip, [("user", "We fly to Porto in May."), ("assistant", "Noted.")])
    return app


class TestProjects:
    def test_the_panel_says_each_entrys_scope(
        self, build: BuildApp, snap_compare: SnapCompare
    ) -> None:
        """160x45, F6: the entries say `global` or `project Allotment` (the plot 14 fact,
        in context); the memory layer panel's hint `i memory:4: in as entries of project
        “Allotment”, which this conversation is in`."""
        app = allotment_project(build())
        assert snap_compare(app, run_before=then("f6"), terminal_size=LARGE)

    def test_the_move_dialog(self, build: BuildApp, snap_compare: SnapCompare) -> None:
        """The palette's "project: move this conversation…": a dialog `Move this conversation
        to a project`, a line on what that does, the list `no project`, `● Allotment · 1
        conversation, 1 entry` (highlighted: the current one), `Kitchen · 0 conversations, 0
        entries`, a box `or a new project's name` and a Cancel button."""
        app = allotment_project(build())
        keys = ("ctrl+p", *"project: move", "enter")
        assert snap_compare(app, run_before=then(*keys), terminal_size=SMALL)

    def test_the_switcher_shows_the_project(
        self, build: BuildApp, snap_compare: SnapCompare
    ) -> None:
        """Ctrl+L: Garden's second line ends with `· project Allotment`; Trip to Porto's
        names none."""
        app = allotment_project(build())
        assert snap_compare(app, run_before=then("ctrl+l"), terminal_size=SMALL)
