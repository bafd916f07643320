"""The memory panel: every entry's kind, pin, scope, importance and plan status; keys post messages."""

from dataclasses import replace

import pytest
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from ctxchat.config.shipped_keys import SHIPPED_KEYS
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.tui.widgets.memory_panel import MemoryPanel, entry_status, next_kind

from .widget_hosts import ENTRIES, HostApp, make_plan, rendered


class MemoryHost(HostApp):
    def __init__(self, entries: list[MemoryEntry], mode: Mode = Mode.PERSONALIZATION) -> None:
        plan = make_plan(memory=entries, mode=mode)
        super().__init__(lambda: [MemoryPanel(entries, plan, id="memory")])
        self.posted: list[Message] = []

    def on_memory_panel_add_requested(self, message: MemoryPanel.AddRequested) -> None:
        self.posted.append(message)

    def on_memory_panel_edit_requested(self, message: MemoryPanel.EditRequested) -> None:
        self.posted.append(message)

    def on_memory_panel_delete_requested(self, message: MemoryPanel.DeleteRequested) -> None:
        self.posted.append(message)

    def on_memory_panel_pin_toggled(self, message: MemoryPanel.PinToggled) -> None:
        self.posted.append(message)

    def on_memory_panel_kind_cycled(self, message: MemoryPanel.KindCycled) -> None:
        self.posted.append(message)

    def on_memory_panel_scope_toggled(self, message: MemoryPanel.ScopeToggled) -> None:
        self.posted.append(message)

    def on_memory_panel_toggled(self, message: MemoryPanel.Toggled) -> None:
        self.posted.append(message)

    def on_memory_panel_importance_changed(self, message: MemoryPanel.ImportanceChanged) -> None:
        self.posted.append(message)

    def on_memory_panel_new_version_requested(
        self, message: MemoryPanel.NewVersionRequested
    ) -> None:
        self.posted.append(message)

    def on_memory_panel_confirm_requested(self, message: MemoryPanel.ConfirmRequested) -> None:
        self.posted.append(message)

    def on_memory_panel_keep_requested(self, message: MemoryPanel.KeepRequested) -> None:
        self.posted.append(message)

    def on_memory_panel_restore_requested(self, message: MemoryPanel.RestoreRequested) -> None:
        self.posted.append(message)

    def on_memory_panel_source_requested(self, message: MemoryPanel.SourceRequested) -> None:
        self.posted.append(message)


def option_texts(panel: MemoryPanel) -> list[str]:
    texts: list[str] = []
    for option in panel.option_list.options:
        assert isinstance(option.prompt, Content)  # entry text is never markup
        texts.append(option.prompt.plain)
    return texts


async def test_every_entry_shows_kind_pin_scope_importance_and_status() -> None:
    app = MemoryHost(ENTRIES, Mode.OBJECTIVE)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        panel = app.query_one(MemoryPanel)
        texts = option_texts(panel)
        assert texts[0] == (
            " fact        global · importance 6 · in context · 13 tokens\n"
            "  The service runs on PostgreSQL 16."
        )
        assert texts[2].splitlines() == [
            " preference  ● pinned · global · importance 5",
            "  Prefers short answers.",
            "  excluded: objective mode leaves out preferences",
        ]
        assert texts[3].splitlines()[0] == " hypothesis  global · importance 7"
        assert texts[3].splitlines()[2] == "  excluded: objective mode leaves out hypotheses"
        assert "this conversation · importance 3 · in context" in texts[4]
        assert texts[5].endswith("  Never touch the billing tables.\n  excluded by you")
        header = rendered(panel.query_one(".memory-panel--header", Static))
        assert "memory · 6 entries · 3 in context (" in header
        assert "mode objective" in header


async def test_one_entry_is_counted_as_one() -> None:
    app = MemoryHost(ENTRIES[:1])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        header = rendered(app.query_one(".memory-panel--header", Static))
        assert "memory · 1 entry · " in header


def test_entry_status_without_a_plan_and_outside_it() -> None:
    assert entry_status(ENTRIES[0], None) is None
    other = MemoryEntry(9, MemoryKind.FACT, "Elsewhere.", conversation_id=8)
    status = entry_status(other, make_plan())
    assert status is not None and not status.included
    assert status.text == "not in this conversation's request"


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["ctrl+a"], ("AddRequested", {})),
        (["insert"], ("AddRequested", {})),
        (["ctrl+e"], ("EditRequested", {"entry_id": 1})),
        (["enter"], ("EditRequested", {"entry_id": 1})),
        (["down", "delete"], ("DeleteRequested", {"entry_id": 2})),
        (["ctrl+k"], ("PinToggled", {"entry_id": 1, "pinned": True})),
        (["down", "down", "ctrl+k"], ("PinToggled", {"entry_id": 3, "pinned": False})),
        (["shift+right"], ("KindCycled", {"entry_id": 1, "kind": MemoryKind.CONSTRAINT})),
        (
            ["end", "up", "up", "shift+right"],
            ("KindCycled", {"entry_id": 4, "kind": MemoryKind.FACT}),
        ),
        (["ctrl+g"], ("ScopeToggled", {"entry_id": 1, "make_global": False})),
        (["end", "up", "ctrl+g"], ("ScopeToggled", {"entry_id": 5, "make_global": True})),
        (["ctrl+x"], ("Toggled", {"entry_id": 1, "enabled": False})),
        (["end", "ctrl+x"], ("Toggled", {"entry_id": 6, "enabled": True})),
        (["shift+up"], ("ImportanceChanged", {"entry_id": 1, "delta": 1, "importance": 7})),
        (
            ["down", "shift+down"],
            ("ImportanceChanged", {"entry_id": 2, "delta": -1, "importance": 8}),
        ),
        (["ctrl+u"], ("NewVersionRequested", {"entry_id": 1})),
        (["end", "up", "up", "ctrl+y"], ("ConfirmRequested", {"entry_id": 4})),
    ],
)
async def test_each_key_posts_its_message_for_the_highlighted_entry(
    keys: list[str], expected: tuple[str, dict[str, object]]
) -> None:
    app = MemoryHost(ENTRIES)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(MemoryPanel)
        panel.option_list.focus()
        await pilot.press(*keys)
        await pilot.pause()
        [message] = app.posted
        name, fields = expected
        assert type(message).__name__ == name
        assert message.control is panel
        for field, value in fields.items():
            assert getattr(message, field) == value


async def test_no_printable_key_fires_an_action() -> None:
    """Every letter, digit and sign of the old single-key actions (a e d p k s x + - n r c w
    g o, space, =) does nothing here: the app sends such keys to the composer."""
    app = MemoryHost(ENTRIES)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(MemoryPanel)
        panel.option_list.focus()
        await pilot.press(*"aedpksx+-nrcwgo =", "plus", "minus", "equals_sign", "space")
        await pilot.press("end", "up", "up", *"cwdg")  # on the hypothesis, too
        await pilot.pause()
        assert app.posted == []
        assert not panel.sorted_by_use


async def test_importance_stops_at_its_bounds() -> None:
    entries = [
        MemoryEntry(1, MemoryKind.FACT, "Top.", importance=10),
        MemoryEntry(2, MemoryKind.FACT, "Bottom.", importance=1),
    ]
    app = MemoryHost(entries)
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(MemoryPanel).option_list.focus()
        await pilot.press("shift+up", "down", "shift+down")
        await pilot.pause()
        assert app.posted == []


async def test_an_empty_panel_only_adds() -> None:
    app = MemoryHost([])
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(MemoryPanel)
        panel.option_list.focus()
        await pilot.press(
            "ctrl+e", "delete", "ctrl+k", "shift+right", "ctrl+g", "ctrl+x", "shift+up", "ctrl+a"
        )
        await pilot.pause()
        assert [type(m).__name__ for m in app.posted] == ["AddRequested"]
        assert panel.check_action("edit", ()) is None
        assert panel.check_action("add", ()) is True


async def test_the_highlighted_entry_stays_across_updates() -> None:
    app = MemoryHost(ENTRIES)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(MemoryPanel)
        panel.option_list.focus()
        await pilot.press("down", "down", "down")
        assert panel.highlighted_entry == ENTRIES[3]
        # The app pins entry 4 and re-sorts: pinned entries first.
        pinned = replace(ENTRIES[3], pinned=True)
        entries = [ENTRIES[2], pinned, *ENTRIES[:2], *ENTRIES[4:]]
        panel.update_entries(entries, make_plan(memory=entries))
        await pilot.pause()
        assert panel.highlighted_entry == pinned
        assert panel.option_list.highlighted == 1
        # Deleted: the cursor stays at the same place in the list.
        rest = [e for e in entries if e.id != 4]
        panel.update_entries(rest, make_plan(memory=rest))
        await pilot.pause()
        assert panel.option_list.highlighted == 1
        assert panel.highlighted_entry == rest[1]


async def test_entry_text_is_never_markup_and_control_sequences_are_removed() -> None:
    entries = [
        MemoryEntry(
            1,
            MemoryKind.FACT,
            "[bold]not bold[/bold] [/INST] [@click=app.quit]x[/] \x1b[31mred\x1b[0m\x1b]0;pwned\x07",
            key="[i]key[/i]",
        )
    ]
    app = MemoryHost(entries)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        panel = app.query_one(MemoryPanel)
        [text] = option_texts(panel)
        assert text.endswith(
            "  [i]key[/i]: [bold]not bold[/bold] [/INST] [@click=app.quit]x[/] red"
        )
        shown = rendered(panel.option_list)
        assert "[@click=app.quit]x[/] red" in shown
        assert "\x1b" not in shown and "pwned" not in shown
        await pilot.click(panel.option_list, offset=(40, 1))
        assert app.is_running


def test_next_kind_cycles_through_all_kinds() -> None:
    kinds = [MemoryKind.FACT]
    for _ in range(4):
        kinds.append(next_kind(kinds[-1]))
    assert kinds == [
        MemoryKind.FACT,
        MemoryKind.CONSTRAINT,
        MemoryKind.PREFERENCE,
        MemoryKind.HYPOTHESIS,
        MemoryKind.FACT,
    ]


def test_every_binding_has_an_id_and_a_tooltip_and_the_template_lists_it() -> None:
    """The ids are those of the letter keys they replaced (remaps keep working), and the
    config template lists each with the keys it ships with."""
    bindings = Binding.make_bindings(MemoryPanel.BINDINGS)
    keys: dict[str, list[str]] = {}
    for binding in bindings:
        assert binding.id and binding.tooltip
        keys.setdefault(binding.id, []).append(binding.key)
    assert {name: ",".join(found) for name, found in keys.items()} == {
        name: SHIPPED_KEYS[name] for name in keys
    }


def test_no_binding_is_a_key_typing_can_hit() -> None:
    for binding in Binding.make_bindings(MemoryPanel.BINDINGS):
        assert len(binding.key) > 1
        assert binding.key not in ("space", "plus", "minus", "equals_sign")


async def test_a_replan_that_leaves_memory_alone_keeps_the_list_as_it_is() -> None:
    app = MemoryHost(ENTRIES)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        panel = app.query_one(MemoryPanel)
        before = list(panel.option_list.options)
        # Typing changes the input layer only: the memory layer is the same.
        panel.update_entries(ENTRIES, make_plan(memory=ENTRIES, new_input="a new draft"))
        await pilot.pause()
        assert all(a is b for a, b in zip(panel.option_list.options, before, strict=True))
        panel.update_entries(ENTRIES, make_plan(memory=ENTRIES, mode=Mode.OBJECTIVE))
        await pilot.pause()
        assert panel.option_list.options[0] is not before[0]
        assert "mode objective" in str(panel.query_one(Static).render())
