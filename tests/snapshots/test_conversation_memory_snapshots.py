"""A conversation's own memory, in pictures: deleting it asks about its entries, which stay."""

from __future__ import annotations

from collections.abc import Callable

from ctxchat.core.memory import MemoryKind
from ctxchat.tui.app import CtxChatApp

from .snapshot_apps import HOUR, NOW, BuildApp, Clock, exchange, then

SnapCompare = Callable[..., bool]
NARROW = (80, 24)
WIDE = (200, 50)


def trip_with_pinned_facts(app: CtxChatApp, clock: Clock) -> CtxChatApp:
    """The open conversation "Garden", and "Trip to Porto" holding two entries of its own."""
    store = app.workspace.store
    clock.now = NOW - 2 * HOUR
    garden = app.conversation_screen.session.stored_id
    store.conversations.rename_conversation(garden, "Garden")
    exchange(store, garden, [("user", "When to plant tulips?"), ("assistant", "In autumn.")])
    clock.now = NOW - HOUR
    trip = store.conversations.create_conversation("Trip to Porto", model="gpt-4o").id
    exchange(store, trip, [("user", "We fly to Porto in May."), ("assistant", "Noted.")])
    store.memory.add_memory(
        MemoryKind.FACT, "Destination city is Porto.", pinned=True, conversation_id=trip
    )
    store.memory.add_memory(MemoryKind.CONSTRAINT, "Budget is 900 euros.", conversation_id=trip)
    clock.now = NOW
    return app


class TestDeletingAConversationWithMemory:
    def test_narrow(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """Ctrl+L, tab, the highlighted "Trip to Porto", delete: a red-framed dialog asks
        `Delete “Trip to Porto” and its 2 messages?`, says it has 2 memory entries of its own
        (`“Destination city is Porto.”, “Budget is 900 euros.”`) kept as global entries left
        out until included, `This cannot be undone.`, and three buttons: `Cancel`
        (focused), `Delete, keep memory`, `Delete all`."""
        app = trip_with_pinned_facts(build(), clock)
        keys = ("ctrl+l", "tab", "up", "delete")
        assert snap_compare(app, run_before=then(*keys), terminal_size=NARROW)

    def test_wide(self, build: BuildApp, clock: Clock, snap_compare: SnapCompare) -> None:
        """As narrow, the dialog 72 columns wide over the switcher."""
        app = trip_with_pinned_facts(build(), clock)
        keys = ("ctrl+l", "tab", "up", "delete")
        assert snap_compare(app, run_before=then(*keys), terminal_size=WIDE)

    def test_kept_entries_after_deleting(
        self, build: BuildApp, clock: Clock, snap_compare: SnapCompare
    ) -> None:
        """After `Delete, keep memory`: the Garden conversation with the context side
        (200x50); the memory panel lists both entries as global, dimmed, each with `kept from
        the deleted conversation “Trip to Porto”: include it to use it`; the memory layer
        sends nothing of them."""
        app = trip_with_pinned_facts(build(), clock)
        keys = ("ctrl+l", "tab", "up", "delete", "tab", "enter")
        assert snap_compare(app, run_before=then(*keys), terminal_size=WIDE)
