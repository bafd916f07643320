"""Where memory entries apply, in pictures: an entry switched off for one conversation."""

from __future__ import annotations

from collections.abc import Callable

from ctxchat.core.memory import MemoryKind
from ctxchat.tui.app import CtxChatApp

from .snapshot_apps import BuildApp, exchange, then

SnapCompare = Callable[..., bool]
SMALL = (80, 24)
LARGE = (160, 45)


def garden_with_global_memory(app: CtxChatApp) -> CtxChatApp:
    """The open conversation "Garden" and three global entries."""
    store = app.workspace.store
    garden = app.conversation_screen.session.conversation
    store.rename_conversation(garden, "Garden")
    exchange(store, garden, [("user", "When to plant tulips?"), ("assistant", "In autumn.")])
    store.add_memory(MemoryKind.FACT, "The soil is heavy clay.", importance=7)
    store.add_memory(MemoryKind.PREFERENCE, "Prefers native plants.")
    store.add_memory(MemoryKind.CONSTRAINT, "No pesticides.", importance=8)
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
