"""Dialogs and screens: what each key and button dismisses with, and what is refused."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Button, Input, OptionList, RadioButton, RadioSet, Static, TextArea

from ctxchat.chat.extractor import Decision, ProposalDecision
from ctxchat.core.memory import MemoryEntry, MemoryKind
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.conversations import ConversationSwitcher, SwitcherResult
from ctxchat.tui.screens.delete_conversation import DeleteConversationScreen
from ctxchat.tui.screens.edit_message import EditMessageScreen, EditResult
from ctxchat.tui.screens.error_details import ErrorDetails
from ctxchat.tui.screens.export_format import ExportChoice, ExportFormatScreen
from ctxchat.tui.screens.extraction import ExtractionReview
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.screens.rename import RenameScreen
from ctxchat.tui.screens.setup import SetupChoice, SetupScreen, check_choice
from ctxchat.tui.screens.summarize_preview import SummarizePreview
from ctxchat.tui.screens.summary_versions import SummaryAction, SummaryScreen
from ctxchat.tui.views import MemoryDraft, MessageView

from ..waiting import until
from .screen_hosts import PROBLEMS, PROPOSALS, ROWS, SERVERS, VERSIONS, ScreenHost

# Confirm


async def test_confirm_yes_and_no() -> None:
    app = ScreenHost(ConfirmScreen("Delete it?", "Delete", danger=True))
    async with app.run_test() as pilot:
        await pilot.press("enter")  # Cancel has the focus on a dangerous question
        assert app.result is False
    app = ScreenHost(ConfirmScreen("Open it?", "Open"))
    async with app.run_test() as pilot:
        await pilot.press("enter")
        assert app.result is True
    app = ScreenHost(ConfirmScreen("Open it?", "Open"))
    async with app.run_test() as pilot:
        await pilot.press("escape")
        assert app.result is False


async def test_confirm_by_letter_but_a_typed_y_deletes_nothing() -> None:
    app = ScreenHost(ConfirmScreen("Open it?", "Open"))
    async with app.run_test() as pilot:
        await pilot.press("y")
        assert app.result is True
    app = ScreenHost(ConfirmScreen("Delete it?", "Delete", danger=True))
    async with app.run_test() as pilot:
        await pilot.press(*"yes")  # someone typing "yes…" as the question popped up
        await until(pilot, lambda: app.result is not ScreenHost.NO_RESULT)
        assert app.result is None  # closed by the typing, as Cancel would: nothing deleted
    app = ScreenHost(ConfirmScreen("Delete it?", "Delete", danger=True))
    async with app.run_test() as pilot:
        await pilot.press("n")  # no is always safe
        assert app.result is False
    app = ScreenHost(ConfirmScreen("Delete it?", "Delete", danger=True))
    async with app.run_test() as pilot:
        await pilot.press("tab", "enter")  # yes takes the red button
        assert app.result is True


# Memory editor


async def test_memory_editor_refuses_empty_text_then_saves() -> None:
    app = ScreenHost(MemoryEditor())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+s")
        errors = str(app.screen.query_one("#memory-errors", Static).content)
        assert errors == "The text cannot be empty."
        assert app.result is ScreenHost.NO_RESULT
        await pilot.press(*"Uses uv")
        await pilot.click("#save")
        assert app.result == MemoryDraft(text="Uses uv")


async def test_memory_editor_prefilled_for_pinning_returns_every_field() -> None:
    draft = MemoryDraft(text="The project targets Python 3.11.", kind=MemoryKind.FACT)
    app = ScreenHost(MemoryEditor(draft, heading="Pin message 12"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert screen.query_one(TextArea).text == draft.text
        screen.query_one("#memory-key", Input).value = "python"
        screen.query_one("#memory-importance", Input).value = "9"
        await pilot.click("#kind-constraint")
        await pilot.click("#scope-conversation")
        await pilot.click("#memory-pinned")
        await pilot.press("ctrl+s")
        assert app.result == MemoryDraft(
            text="The project targets Python 3.11.",
            key="python",
            kind=MemoryKind.CONSTRAINT,
            scope="conversation",
            importance=9,
            pinned=True,
        )


async def test_memory_editor_checks_importance_and_cancels() -> None:
    entry = MemoryEntry(3, MemoryKind.PREFERENCE, "Short answers", importance=4, conversation_id=2)
    app = ScreenHost(MemoryEditor(MemoryDraft.from_entry(entry)))
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.screen.query_one("#scope-conversation", RadioButton).value
        app.screen.query_one("#memory-importance", Input).value = "11"
        await pilot.press("ctrl+s")
        errors = str(app.screen.query_one("#memory-errors", Static).content)
        assert errors == "Importance is a whole number from 1 to 10."
        await pilot.press("escape")
        assert app.result is None


# Edit and resend


async def test_edit_message_keeps_later_turns_as_a_branch_by_default() -> None:
    app = ScreenHost(EditMessageScreen(5, "Old question", later_count=4))
    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.query_one(TextArea).load_text("New question")
        await pilot.press("ctrl+s")
        assert app.result == EditResult(5, "New question", "branch")


async def test_edit_message_can_replace_later_turns_and_refuses_empty_text() -> None:
    app = ScreenHost(EditMessageScreen(5, "Old question", later_count=1))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.click("#later-replace")
        app.screen.query_one(TextArea).load_text("   ")
        await pilot.press("ctrl+s")
        assert app.result is ScreenHost.NO_RESULT
        app.screen.query_one(TextArea).load_text("Better question")
        await pilot.click("#send")
        assert app.result == EditResult(5, "Better question", "replace")


# Conversation switcher


async def test_switcher_filters_as_you_type_and_switches() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS, current_id=2))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ConversationSwitcher)
        assert screen.visible_ids == [1, 2, 3, 4]
        await pilot.press(*"config")
        assert screen.visible_ids == [1, 4]
        await pilot.press(*" rules")
        assert screen.visible_ids == [4]
        await pilot.press("enter")
        assert app.result == SwitcherResult("switch", 4)


async def test_switcher_shows_when_nothing_matches() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"zzz")
        screen = app.screen
        assert isinstance(screen, ConversationSwitcher)
        assert screen.visible_ids == []
        assert str(screen.query_one("#switcher-empty", Static).content) == (
            "No conversation title matches “zzz”."
        )
        await pilot.press("escape")  # clears the search first
        assert screen.visible_ids == [1, 2, 3, 4]
        await pilot.press("escape")
        assert app.result is None


async def test_switcher_letters_type_into_the_search_not_actions() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("n", "d")
        assert app.screen.query_one(Input).value == "nd"
        assert app.result is ScreenHost.NO_RESULT


async def test_switcher_letters_typed_in_the_list_search_and_fire_nothing() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ConversationSwitcher)
        await pilot.press("tab")
        assert isinstance(app.focused, OptionList)
        await pilot.press(*"n r d e /lisbonx", "backspace")  # n/r/d/e once fired commands
        await pilot.pause()
        assert screen.query_one(Input).value == "n r d e /lisbon"
        assert isinstance(app.screen, ConversationSwitcher)  # no rename, no delete question
        assert app.result is ScreenHost.NO_RESULT
        assert isinstance(app.focused, OptionList)  # the list keeps the keys in order
        await pilot.press("ctrl+u")  # not typing: nothing happens to the search
        assert screen.query_one(Input).value == "n r d e /lisbon"


async def test_switcher_typing_in_the_list_narrows_it_and_enter_opens() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ConversationSwitcher)
        await pilot.press("tab", *"lisbon")
        await until(pilot, lambda: screen.visible_ids == [2])
        screen.query_one(OptionList).post_message(events.Paste(" trip"))  # so does a paste
        await until(pilot, lambda: screen.query_one(Input).value == "lisbon trip")
        await pilot.press("enter")
        assert app.result == SwitcherResult("switch", 2)


async def test_switcher_new() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+n")  # from the search box as from the list
        assert app.result == SwitcherResult("new")


async def test_switcher_rename() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("tab", "down", "ctrl+r")
        assert isinstance(app.screen, RenameScreen)
        app.screen.query_one(Input).value = "  Lisbon   packing  "
        await pilot.press("enter")
        assert app.result == SwitcherResult("rename", 2, title="Lisbon packing")


async def test_switcher_rename_refuses_an_empty_title() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+r")
        app.screen.query_one(Input).value = "   "
        await pilot.press("enter")
        assert isinstance(app.screen, RenameScreen)
        await pilot.press("escape", "escape")
        assert app.result is None


async def test_switcher_delete_asks_first() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("delete")  # in the search box it deletes a character, no more
        assert isinstance(app.screen, ConversationSwitcher)
        await pilot.press("tab", "down", "down", "delete")
        assert isinstance(app.screen, DeleteConversationScreen)
        await pilot.press("enter")  # Cancel has the focus: a stray Enter deletes nothing
        assert isinstance(app.screen, ConversationSwitcher)
        await pilot.press("delete")
        await pilot.press("escape")  # no: back in the switcher
        assert isinstance(app.screen, ConversationSwitcher)
        await pilot.press("delete")
        await pilot.click("#keep-memory")
        assert app.result == SwitcherResult("delete", 3)


async def test_switcher_export_asks_the_app_to_export_the_highlighted_one() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+s")
        assert app.result == SwitcherResult("export", 1)


async def test_switcher_ctrl_f_goes_back_to_the_search_box() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("tab")
        assert isinstance(app.focused, OptionList)
        await pilot.press("ctrl+f")
        assert isinstance(app.focused, Input)


async def test_export_asks_the_format_and_the_folder(tmp_path: Path) -> None:
    app = ScreenHost(ExportFormatScreen("Notes", tmp_path / "exports"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/jm")  # letters choose nothing: they go into the folder box
        assert app.result is ScreenHost.NO_RESULT
        await pilot.press("ctrl+j")
        assert app.result == ExportChoice("json", tmp_path / "exports" / "jm")
    app = ScreenHost(ExportFormatScreen("Notes", tmp_path / "exports", "json"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+t")
        assert app.result == ExportChoice("markdown", tmp_path / "exports")
    app = ScreenHost(ExportFormatScreen("Notes", tmp_path / "exports", "json"))
    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.query_one("#export-folder", Input).value = "~/elsewhere"
        await pilot.press("enter")  # the JSON button has focus: it was asked for
        assert app.result == ExportChoice("json", Path("~/elsewhere").expanduser())


# Summary versions


async def test_summary_screen_starts_on_the_active_version_and_rolls_back() -> None:
    app = ScreenHost(SummaryScreen(VERSIONS))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, SummaryScreen)
        assert screen.selected is not None and screen.selected.version == 3
        await pilot.press("ctrl+r")  # already active: nothing happens
        assert app.result is ScreenHost.NO_RESULT
        await pilot.press("down", "down", "ctrl+r")
        assert app.result == SummaryAction("activate", 11)


async def test_summary_screen_edit_saves_the_new_text() -> None:
    app = ScreenHost(SummaryScreen(VERSIONS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+e")
        screen = app.screen
        assert isinstance(screen, SummaryScreen) and screen.editing
        editor = screen.query_one(TextArea)
        assert editor.text == VERSIONS[2].text
        editor.load_text("decision: tomllib\nopen: none")
        await pilot.press("ctrl+s")
        assert app.result == SummaryAction("edit", 13, "decision: tomllib\nopen: none")


async def test_summary_screen_escape_leaves_editing_before_closing() -> None:
    app = ScreenHost(SummaryScreen(VERSIONS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+e", "escape")
        screen = app.screen
        assert isinstance(screen, SummaryScreen) and not screen.editing
        await pilot.press("escape")
        assert app.result is None


async def test_summary_screen_rebuild_and_summarize_now() -> None:
    app = ScreenHost(SummaryScreen(VERSIONS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+b")
        assert app.result == SummaryAction("rebuild", 13)
    app = ScreenHost(SummaryScreen([]))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+r", "ctrl+e", "ctrl+s")
        assert app.result == SummaryAction("summarize")


async def test_summary_screen_letters_typed_close_it_and_do_nothing() -> None:
    app = ScreenHost(SummaryScreen(VERSIONS))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("down", *"a base, please")  # a, b, e and s acted before
        await until(pilot, lambda: app.result is not ScreenHost.NO_RESULT)
        assert app.result is None


async def test_summarize_preview_confirms_or_cancels() -> None:
    messages = [MessageView(i, "user", f"turn {i}", tokens=10) for i in range(1, 4)]
    app = ScreenHost(SummarizePreview(messages, next_version=4))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        assert app.result is True
    app = ScreenHost(SummarizePreview(messages, next_version=4))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        assert app.result is False
    app = ScreenHost(SummarizePreview([], next_version=1))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")  # only Cancel is there to press
        assert app.result is False


async def test_summarize_preview_counts_a_long_fold_whole_and_lists_its_start() -> None:
    messages = [MessageView(i, "user", f"turn {i}", tokens=10) for i in range(1, 251)]
    app = ScreenHost(SummarizePreview(messages, next_version=2))
    async with app.run_test(size=(100, 30)):
        screen = app.screen
        headline = str(screen.query_one("#preview-headline", Static).render())
        assert headline.startswith("Fold 250 messages (#1–#250, 2,500 tokens) into summary v2")
        assert str(screen.query_one("#confirm", Button).label) == "Summarize 250"
        listed = screen.query_one("#preview-list", OptionList)
        assert listed.option_count == 201
        last = listed.get_option_at_index(200)
        assert (str(last.prompt), last.disabled) == ("… and 50 more, up to #250", True)


# Extraction review


def decided(
    index: int, action: Decision, kind: MemoryKind, importance: int, target: int | None = None
) -> ProposalDecision:
    """The decision the review returns for proposal `index`, unedited: it carries the message
    the proposal came from."""
    proposal = PROPOSALS[index]
    return ProposalDecision(
        index,
        action,
        kind,
        proposal.text,
        importance,
        target,
        message_id=proposal.source_message_id,
    )


async def test_extraction_decisions_accept_update_reject_and_skip() -> None:
    app = ScreenHost(ExtractionReview(PROPOSALS, PROBLEMS))
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.press("ctrl+u")  # proposal 0 restates memory #4
        await pilot.press("ctrl+a")  # proposal 1
        await pilot.press("ctrl+x")  # proposal 2
        await pilot.press("ctrl+s")  # proposal 3 left undecided
        assert app.result == [
            decided(0, Decision.UPDATE, MemoryKind.FACT, 8, 4),
            decided(1, Decision.ACCEPT, MemoryKind.CONSTRAINT, 9),
            decided(2, Decision.REJECT, MemoryKind.PREFERENCE, 4),
        ]


async def test_extraction_proposes_an_update_and_shows_the_conflict_side_by_side() -> None:
    app = ScreenHost(ExtractionReview(PROPOSALS))
    async with app.run_test(size=(110, 30)) as pilot:
        screen = app.screen
        conflict = screen.query_one("#extraction-conflict")
        assert conflict.display
        now = str(screen.query_one("#conflict-now", Static).content)
        proposed = str(screen.query_one("#conflict-proposed", Static).content)
        assert (now, proposed) == (
            "The project uses Python 3.10.",
            "The project targets Python 3.11.",
        )
        await pilot.press("enter")  # on a proposal restating memory #4: update, not a duplicate
        await pilot.press("enter")  # proposal 1 matches nothing: accepted as new
        assert not conflict.display
        await pilot.press("ctrl+s")
        assert app.result == [
            decided(0, Decision.UPDATE, MemoryKind.FACT, 8, 4),
            decided(1, Decision.ACCEPT, MemoryKind.CONSTRAINT, 9),
        ]


async def test_extraction_letters_typed_decide_nothing_and_go_back_to_the_typing() -> None:
    review = ExtractionReview(PROPOSALS, PROBLEMS)
    app = ScreenHost(review)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.press(*"use a fix")  # u, a, e and x decided or opened the editor before
        assert app.screen is not review
        # Closed by typing: its opener keeps the proposals for their key (see
        # `ResultsInWaiting`), and the letters go to the screen under it.
        assert review.handed_back
        assert review.decisions == []
        assert app.result is None


async def test_extraction_update_needs_a_matching_entry() -> None:
    app = ScreenHost(ExtractionReview(PROPOSALS))
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.press("down", "ctrl+u")  # proposal 1 matches nothing
        screen = app.screen
        assert isinstance(screen, ExtractionReview)
        assert screen.decisions == []
        await pilot.press("escape")
        assert app.result is None


async def test_extraction_edit_opens_the_memory_editor_prefilled() -> None:
    app = ScreenHost(ExtractionReview(PROPOSALS, PROBLEMS))
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.press("down", "down", "down", "ctrl+e")
        editor = app.screen
        assert isinstance(editor, MemoryEditor)
        assert editor.query_one(TextArea).text == PROPOSALS[3].text
        editor.query_one(TextArea).load_text("The slow start comes from loading encodings.")
        await pilot.click("#kind-fact")
        await pilot.press("ctrl+s")
        review = app.screen
        assert isinstance(review, ExtractionReview)
        assert review.decisions == [
            ProposalDecision(
                3,
                Decision.ACCEPT,
                MemoryKind.FACT,
                "The slow start comes from loading encodings.",
                3,
                edited=True,
                message_id=PROPOSALS[3].source_message_id,
            )
        ]
        tally = str(review.query_one("#extraction-tally", Static).content)
        assert tally == "1 to add · 0 to update · 0 rejected · 3 undecided"


async def test_extraction_shows_the_problems_line() -> None:
    app = ScreenHost(ExtractionReview([], PROBLEMS))
    async with app.run_test(size=(110, 30)):
        line = str(app.screen.query_one("#extraction-problems", Static).content)
        assert line.startswith("⚠ 2 problems in the model's reply: Entry 5 has no text")


# First-run setup


def test_check_choice_sentences() -> None:
    assert check_choice("openai", "", "gpt-4o-mini", "OPENAI_API_KEY") == []
    assert check_choice("custom", "localhost:8080", "m", "") == [
        "The base URL starts with http:// or https://, e.g. http://127.0.0.1:8080/v1."
    ]
    assert check_choice("custom", "http://h:1/v1", "", "") == ["Name the model to use."]
    assert check_choice("custom", "http://h:1/v1", "my model", "") == [
        "A model name has no spaces."
    ]
    assert check_choice("custom", "http://h:1/v1", "m", "sk-abc123456") == [
        "That looks like a key itself: type it under API key, and here the name of the "
        "environment variable that holds it, e.g. OPENAI_API_KEY."
    ]
    assert check_choice("custom", "http://h:1/v1", "m", "MY-KEY") == [
        "An environment variable name has letters, digits and _ only, e.g. MY_API_KEY."
    ]
    assert check_choice("server-0", "http://h:1/v1", "m", "", needs_key=True) == [
        "This server needs a key: type it, or name the environment variable that holds it."
    ]
    # A key typed does: stored, the variable is not used; else it is named.
    key = "sk-typed-0123456789"
    for env, store in (("", True), ("1x", True), ("", False)):
        problems = check_choice(
            "server-0", "http://h:1/v1", "m", env, needs_key=True, api_key=key, store_key=store
        )
        assert problems == []
    assert check_choice("custom", "http://h:1/v1", "m", "", api_key="sk-a b") == [
        "A key has no spaces: paste it again."
    ]
    for pasted in ("sk-\u0441ase", "\u201csk-abc\u201d"):  # a Cyrillic "с", typographic quotes
        assert check_choice("custom", "http://h:1/v1", "m", "", api_key=pasted) == [
            "A key has only ASCII letters, digits and punctuation: look for a non-Latin "
            "letter or a typographic quote pasted with it."
        ]
    assert check_choice("custom", "http://h:99999/v1", "m", "") == [
        "That is not a URL: e.g. http://127.0.0.1:8080/v1."
    ]


async def test_setup_picks_the_found_server_first() -> None:
    app = ScreenHost(SetupScreen(SERVERS, openai_key_present=False))
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.screen.query_one("#setup-model", Input).value == "llama3.2:3b"
        await pilot.press("ctrl+s")
        assert app.result == SetupChoice("ollama", "http://127.0.0.1:11434/v1", "llama3.2:3b", None)


async def test_setup_openai() -> None:
    app = ScreenHost(SetupScreen([], openai_key_present=True, openai_model="gpt-4.1-mini"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+s")
        assert app.result == SetupChoice("openai", None, "gpt-4.1-mini", "OPENAI_API_KEY")


async def test_setup_another_server_is_checked_before_saving() -> None:
    app = ScreenHost(SetupScreen([], openai_key_present=False))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.screen
        warning = str(screen.query_one("#setup-warning", Static).content)
        assert warning == (
            "OPENAI_API_KEY is not set in this shell: type the key above, or set it before "
            "you chat."
        )
        await pilot.click("#provider-custom")
        url = screen.query_one("#setup-url", Input)
        assert not url.disabled and url.value == ""
        await pilot.press("ctrl+s")
        errors = str(screen.query_one("#setup-errors", Static).content).splitlines()
        assert errors == [
            "The base URL starts with http:// or https://, e.g. http://127.0.0.1:8080/v1.",
            "Name the model to use.",
        ]
        assert app.result is ScreenHost.NO_RESULT
        url.value = "http://127.0.0.1:8765/v1"
        screen.query_one("#setup-model", Input).value = "gemma-3-270m"
        # Saved by key, not by a click: the URL's probe answers whenever it does, and its
        # line moves the buttons down.
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.result is not ScreenHost.NO_RESULT)
        assert app.result == SetupChoice("custom", "http://127.0.0.1:8765/v1", "gemma-3-270m", None)


async def test_setup_quit() -> None:
    app = ScreenHost(SetupScreen([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.click("#quit")
        assert app.result is None


# Error details


async def test_error_details_retry_or_close() -> None:
    app = ScreenHost(ErrorDetails("The server refused.", "Start it.", can_retry=True))
    async with app.run_test() as pilot:
        await pilot.press("enter")
        assert app.result is True
    app = ScreenHost(ErrorDetails("The server refused.", "Start it."))
    async with app.run_test() as pilot:
        await pilot.press("escape")
        assert app.result is False


async def test_option_lists_and_radio_sets_exist_where_expected() -> None:
    app = ScreenHost(ConversationSwitcher(ROWS))
    async with app.run_test(size=(100, 30)):
        assert app.screen.query_one(OptionList).option_count == 4
    app = ScreenHost(SetupScreen(SERVERS))
    async with app.run_test(size=(100, 40)):
        assert len(app.screen.query_one(RadioSet).query("RadioButton")) == 3
