"""Every dialog alike: its footer shows its own keys (not the screen's under it), a key does
what its main button does, and a key typed never vanishes: it goes into the dialog's text
box, or closes the dialog and reaches the screen under it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input, TextArea

from ctxchat.chat.deletion import ConversationDeletion
from ctxchat.tui.actions import ACTIONS
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.screens.delete_conversation import DeleteConversationScreen
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.screens.edit_message import EditMessageScreen
from ctxchat.tui.screens.error_details import ErrorDetails
from ctxchat.tui.screens.export_format import ExportFormatScreen
from ctxchat.tui.screens.extraction import ExtractionReview
from ctxchat.tui.screens.import_history import ImportHistoryScreen
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.screens.model_picker import ModelPicker
from ctxchat.tui.screens.rename import RenameScreen
from ctxchat.tui.screens.summarize_preview import SummarizePreview
from ctxchat.tui.screens.summary_versions import SummaryScreen
from ctxchat.tui.textual_compat import FooterKey
from ctxchat.tui.views import MemoryDraft, MessageView
from ctxchat.tui.widgets.footer import KeyFooter

from ..waiting import until
from .screen_hosts import PROBLEMS, PROPOSALS, ROWS, VERSIONS, ScreenHost

UNDER_KEYS = ("Mode", "Chats", "Extract")
"""Footer words of the conversation screen that no dialog uses."""


class Under(Screen[None]):
    """Stands for the conversation screen: its own keys in its footer, and a box that
    typing handed back reaches."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "nothing", "Mode"),
        Binding("ctrl+l", "nothing", "Chats"),
        Binding("ctrl+t", "nothing", "Extract"),
    ]

    def compose(self) -> ComposeResult:
        yield Input(id="under-box")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_nothing(self) -> None:
        pass


class DialogHost(ScreenHost):
    """Opens one dialog over `Under` and keeps what it was dismissed with."""

    def __init__(self, dialog: Dialog[Any]) -> None:
        super().__init__(dialog)
        self.dialog = dialog
        self.under = Under()

    def on_mount(self) -> None:
        # Textual runs `ScreenHost.on_mount` after this one: the dialog goes over `Under`.
        self.push_screen(self.under)


@dataclass(frozen=True)
class Case:
    make: Callable[[Path], Dialog[Any]]
    submit: str
    """The key that does what the dialog's main button does."""
    submitted: Callable[[Any], bool]
    """Whether the result is the one the main button gives."""


def _import_file(folder: Path) -> ImportHistoryScreen:
    export = folder / "conversations.json"
    export.write_text("[]", encoding="utf-8")
    return ImportHistoryScreen([("ChatGPT", "chatgpt")], path=str(export))


FOLDED = [MessageView(3, "user", "Older question", tokens=40)]

CASES: dict[str, Case] = {
    "ConfirmScreen": Case(
        lambda _: ConfirmScreen("Open it?", "Open"), "ctrl+s", lambda result: result is True
    ),
    "ConfirmScreen (deletes)": Case(
        lambda _: ConfirmScreen("Delete it?", "Delete", danger=True),
        "ctrl+s",
        lambda result: result is True,
    ),
    "ConversationSwitcher": Case(
        lambda _: ConversationSwitcher(ROWS),
        "enter",
        lambda result: result is not None and result.action == "switch",
    ),
    "DeleteConversationScreen": Case(
        lambda _: DeleteConversationScreen(ConversationDeletion(3, "Old", 4, ())),
        "ctrl+s",
        lambda result: result == "keep-memory",
    ),
    "EditMessageScreen": Case(
        lambda _: EditMessageScreen(5, "Try once more", 2),
        "ctrl+s",
        lambda result: result is not None and result.text == "Try once more",
    ),
    "ErrorDetails": Case(
        lambda _: ErrorDetails("The server refused.", "Start it.", can_retry=True),
        "ctrl+r",
        lambda result: result is True,
    ),
    "ExportFormatScreen": Case(
        lambda folder: ExportFormatScreen("Old", folder),
        "ctrl+s",
        lambda result: result is not None and result.export_format == "markdown",
    ),
    "ExtractionReview": Case(
        lambda _: ExtractionReview(PROPOSALS, PROBLEMS), "ctrl+s", lambda result: result == []
    ),
    "ImportHistoryScreen": Case(
        _import_file, "ctrl+s", lambda result: result is not None and result.source is None
    ),
    "MemoryEditor": Case(
        lambda _: MemoryEditor(MemoryDraft(text="Uses uv")),
        "ctrl+s",
        lambda result: result == MemoryDraft(text="Uses uv"),
    ),
    "ModelPicker": Case(
        lambda _: ModelPicker(
            [("local", "http://127.0.0.1:8080/v1", "qwen")],
            ["qwen", "gemma"],
            current_profile="local",
            current_model="qwen",
        ),
        "enter",
        lambda result: result is not None and result.profile == "local",
    ),
    "RenameScreen": Case(
        lambda _: RenameScreen("Old title"), "ctrl+s", lambda result: result == "Old title"
    ),
    "SummarizePreview": Case(
        lambda _: SummarizePreview(FOLDED, next_version=2), "ctrl+s", lambda result: result is True
    ),
    "SummaryScreen": Case(
        lambda _: SummaryScreen(VERSIONS),
        "ctrl+s",
        lambda result: result is not None and result.action == "summarize",
    ),
}


def footer_words(dialog: Screen[Any]) -> set[str]:
    """The words of the keys the dialog's own footer shows."""
    footers = list(dialog.query(KeyFooter))
    assert footers, f"{type(dialog).__name__} has no footer of its own"
    return {str(key.description) for key in footers[0].query(FooterKey)}


def own_classes(dialog: Screen[Any]) -> set[str]:
    """The dialog's class and those of its widgets (a list whose own Enter picks)."""
    return {type(dialog).__name__} | {type(widget).__name__ for widget in dialog.query("*")}


def own_words(dialog: Screen[Any]) -> set[str]:
    """The footer words of the dialog's own actions and its widgets' (and quitting, which
    works everywhere)."""
    names = own_classes(dialog)
    return {a.label for a in ACTIONS if a.where in names and a.show} | {"Quit"}


@pytest.mark.parametrize("name", CASES)
async def test_the_footer_shows_the_dialogs_own_keys(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    app = DialogHost(case.make(tmp_path))
    async with app.run_test(size=(110, 34)) as pilot:
        await until(pilot, lambda: app.screen is app.dialog and bool(footer_words(app.dialog)))
        words = footer_words(app.dialog)
        assert words <= own_words(app.dialog)
        assert not words & set(UNDER_KEYS)
        submit_words = {
            a.label
            for a in ACTIONS
            if a.where in own_classes(app.dialog) and case.submit in a.keys.split(",")
        }
        assert submit_words & words, f"{name}: its submit key is not in its footer"


@pytest.mark.parametrize("name", CASES)
async def test_the_submit_key_does_what_the_main_button_does(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    app = DialogHost(case.make(tmp_path))
    async with app.run_test(size=(110, 34)) as pilot:
        await until(pilot, lambda: app.screen is app.dialog)
        await pilot.pause()
        await pilot.press(case.submit)
        await until(pilot, lambda: app.result is not DialogHost.NO_RESULT)
        assert case.submitted(app.result), app.result


@pytest.mark.parametrize("name", CASES)
async def test_a_typed_key_goes_into_the_dialogs_box_or_to_the_screen_under_it(
    name: str, tmp_path: Path
) -> None:
    case = CASES[name]
    app = DialogHost(case.make(tmp_path))
    async with app.run_test(size=(110, 34)) as pilot:
        dialog = app.dialog
        await until(pilot, lambda: app.screen is dialog)
        await pilot.pause()
        box = dialog.typing_box()
        before = "" if box is None else box.value if isinstance(box, Input) else box.text
        # Focus on a button or a list, where a letter means nothing.
        focusable = [w for w in dialog.focus_chain if not isinstance(w, Input | TextArea)]
        if focusable:
            dialog.set_focus(focusable[-1])
            await pilot.pause()
        await pilot.press("q", "z")
        under = app.under.query_one(Input)
        if box is not None:
            await until(pilot, lambda: box.value if isinstance(box, Input) else box.text != before)
            after = box.value if isinstance(box, Input) else box.text
            assert "qz" in after and app.screen is dialog
        else:
            await until(pilot, lambda: under.value == "qz")
            assert app.screen is app.under and app.result is None
