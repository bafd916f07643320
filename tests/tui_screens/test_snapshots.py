"""Snapshots of the conversation pane and every screen, in the states users meet them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Collapsible, Input

from ctxchat.core.history import MessageStatus
from ctxchat.core.memory import MemoryKind
from ctxchat.core.summary import SummaryStrategy
from ctxchat.engine.found import FoundModel
from ctxchat.model.discovery import FoundServer, UrlAnswer
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.conversations import ConversationSwitcher
from ctxchat.tui.screens.edit_message import EditMessageScreen
from ctxchat.tui.screens.error_details import ErrorDetails
from ctxchat.tui.screens.export_format import ExportFormatScreen
from ctxchat.tui.screens.extraction import ExtractionReview
from ctxchat.tui.screens.memory_editor import MemoryEditor
from ctxchat.tui.screens.rename import RenameScreen
from ctxchat.tui.screens.setup import SetupScreen
from ctxchat.tui.screens.setup_engine import EngineOffer
from ctxchat.tui.screens.summarize_preview import SummarizePreview
from ctxchat.tui.screens.summary_versions import SummaryScreen
from ctxchat.tui.themes import load_themes, shipped_theme_dirs
from ctxchat.tui.views import MemoryDraft, MessageView
from ctxchat.tui.widgets.conversation import ConversationView
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from ..waiting import until
from .screen_hosts import (
    NOW,
    PROBLEMS,
    PROPOSALS,
    ROWS,
    SAMPLE,
    SERVERS,
    VERSIONS,
    ConversationHost,
    ScreenHost,
    listed,
)

WIDE = (140, 40)
SnapCompare = Any

FOLDED = [
    MessageView(
        i,
        "user" if i % 2 else "assistant",
        "Which TOML library reads config in Python 3.11?"
        if i % 2
        else "tomllib, in the standard library; tomli-w writes it back.",
        tokens=14 + i,
    )
    for i in range(1, 13)
]

CODE_AND_HTML = MessageView(
    2,
    "assistant",
    "```python\ndef open_db(path):\n    return sqlite3.connect(path)\n```\n\n"
    "```\n$ sqlite3 app.db\n```\n\n"
    "Inline <b>bold</b> and a<br>b.\n\n"
    "<details>\n<summary>Why WAL?</summary>\n\nReaders never block.\n</details>\n",
    tokens=60,
    model="llama3.2:3b",
)


class TestConversationPane:
    def test_turns_of_every_kind(self, snap_compare: SnapCompare) -> None:
        """The end of a conversation at 80x24: the user's [bold]/[/INST] text shown literally,
        an interrupted reply with its reason and "retry: ctrl+r · details: click or ctrl+d"
        in yellow, then a failed reply in red with its reason. The view is scrolled to the newest turn; the footer lists
        Copy, Pin, Edit (dimmed), Retry, Regenerate and Details (the newest reply failed)."""
        assert snap_compare(ConversationHost(len(SAMPLE), listed(SAMPLE)))

    def test_whole_conversation_wide(self, snap_compare: SnapCompare) -> None:
        """All six turns at 140x40: a user question; the assistant's reply with a collapsed
        "Reasoning" section, a highlighted Python code block and **tomli-w** in bold, model and
        token count in its header; a literal-markup question; the interrupted and the failed
        replies."""
        assert snap_compare(ConversationHost(len(SAMPLE), listed(SAMPLE)), terminal_size=WIDE)

    def test_reasoning_expanded_and_a_selected_turn(self, snap_compare: SnapCompare) -> None:
        """At 140x40 the reasoning of the second turn is expanded (dim text under "▼ Reasoning")
        and that turn is selected: its left bar and background are highlighted."""

        async def run_before(pilot: Pilot[None]) -> None:
            pilot.app.query_one(Collapsible).collapsed = False
            pilot.app.query_one(ConversationView).select(2)
            await pilot.pause()

        app = ConversationHost(len(SAMPLE), listed(SAMPLE))
        assert snap_compare(app, terminal_size=WIDE, run_before=run_before)

    def test_selected_user_turn(self, snap_compare: SnapCompare) -> None:
        """80x24: after up, up, the user's "Try once more, please." is selected (a thick accent
        bar and a strong tint); the footer's Edit is now enabled."""
        app = ConversationHost(len(SAMPLE), listed(SAMPLE))
        assert snap_compare(app, press=["up", "up"])

    @pytest.mark.parametrize(
        "theme", ["ctxchat-dark", "ctxchat-light", "solarized-ctx", "textual-light"]
    )
    def test_selected_reply_in_each_theme(self, snap_compare: SnapCompare, theme: str) -> None:
        """80x24 in `theme`: the reply "Use tomllib…" is selected: a thick accent bar on its
        left and a tint that stands clear of the other turns (textual-dark is above)."""

        async def run_before(pilot: Pilot[None]) -> None:
            themes, _ = load_themes(shipped_theme_dirs())
            for shipped in themes:
                pilot.app.register_theme(shipped)
            pilot.app.theme = theme
            pilot.app.query_one(ConversationView).select(2)
            await pilot.pause()

        app = ConversationHost(len(SAMPLE), listed(SAMPLE))
        assert snap_compare(app, run_before=run_before)

    @pytest.mark.parametrize("theme", ["textual-dark", "ctxchat-light"])
    def test_code_blocks_and_html_in_a_reply(self, snap_compare: SnapCompare, theme: str) -> None:
        """80x24 in `theme`: a reply with a highlighted Python block labelled "python" at its
        top right and a plain block with no label, each on a background of its own; then the
        HTML the model wrote, shown as text: `<b>bold</b>`, `a<br>b`, and the `<details>` /
        `<summary>` block as two paragraphs of tags and text."""

        async def run_before(pilot: Pilot[None]) -> None:
            themes, _ = load_themes(shipped_theme_dirs())
            for shipped in themes:
                pilot.app.register_theme(shipped)
            pilot.app.theme = theme
            await pilot.pause()

        views = [MessageView(1, "user", "Show me.", tokens=6), CODE_AND_HTML]
        app = ConversationHost(len(views), listed(views))
        assert snap_compare(app, run_before=run_before)

    def test_reply_while_streaming(self, snap_compare: SnapCompare) -> None:
        """A reply mid-stream: the header says "writing…" and the first paragraph and the start
        of a bullet list have arrived; nothing is marked interrupted."""

        async def run_before(pilot: Pilot[None]) -> None:
            view = pilot.app.query_one(ConversationView)
            await view.add_message(MessageView(1, "user", "Plan the trip.", tokens=9))
            live = LiveTurn(1, reply_id=2)
            item = await view.begin_reply(
                MessageView(2, "assistant", "", MessageStatus.STREAMING, model="llama3.2:3b"),
                live,
            )
            deltas = ["Here is a ", "plan:\n\n", "- Day 1: ", "Alfama\n", "- Day 2"]
            for delta in deltas:
                live.received(delta, "")
                await item.arrived()
            # Writes are paced (the first at once, the rest once it is drawn): wait for all.
            body = item.query_one(ReplyMarkdown)
            await until(pilot, lambda: body.source == "".join(deltas))
            await pilot.pause()

        assert snap_compare(ConversationHost(0, listed([])), run_before=run_before)

    def test_reply_while_the_model_thinks(self, snap_compare: SnapCompare) -> None:
        """A reasoning model before its answer: under the header ("thinking…") an open
        "▼ Reasoning…" section shows the reasoning so far in muted text; the answer below it
        is still empty and nothing is marked interrupted."""

        async def run_before(pilot: Pilot[None]) -> None:
            view = pilot.app.query_one(ConversationView)
            await view.add_message(MessageView(1, "user", "Plan the trip.", tokens=9))
            live = LiveTurn(1, reply_id=2)
            item = await view.begin_reply(
                MessageView(2, "assistant", "", MessageStatus.STREAMING, model="qwen3:8b"),
                live,
            )
            deltas = ["Three days. ", "Alfama first, ", "then Belém; [bold]not[/] Sintra."]
            for delta in deltas:
                live.received("", delta)
                await item.arrived()

            def all_shown() -> bool:
                blocks = item.query(".message--reasoning")
                return any(str(block.render()) == "".join(deltas) for block in blocks)

            await until(pilot, all_shown)
            await pilot.pause()

        assert snap_compare(ConversationHost(0, listed([])), run_before=run_before)


class TestConfirm:
    def test_link_confirmation(self, snap_compare: SnapCompare) -> None:
        """A centred dialog asking "Open this link in your browser?" with the URL below in
        muted text, and Cancel / Open link (Open link focused)."""
        screen = ConfirmScreen(
            "Open this link in your browser?",
            "Open link",
            detail="https://example.com/docs?q=[bold]literal[/bold]",
        )
        assert snap_compare(ScreenHost(screen))

    def test_dangerous_confirmation(self, snap_compare: SnapCompare) -> None:
        """A red-bordered dialog asking to delete a conversation, Cancel focused and a red
        Delete button."""
        screen = ConfirmScreen(
            "Delete “TOML config loading” and its 24 messages?",
            "Delete",
            danger=True,
            detail="This cannot be undone.",
        )
        assert snap_compare(ScreenHost(screen))


class TestMemoryEditor:
    DRAFT = MemoryDraft(
        text="The project targets Python 3.11; tomllib reads the config.",
        key="python-version",
        kind=MemoryKind.FACT,
        importance=8,
    )

    def test_prefilled_for_pinning(self, snap_compare: SnapCompare) -> None:
        """80x24: "Pin message 12" editor with the text in the text area, key python-version,
        kind fact selected (hint "verified, stated as true"), scope every conversation,
        importance 8, not pinned; Cancel and Save at the bottom right."""
        screen = MemoryEditor(self.DRAFT, heading="Pin message 12", note="From message #12.")
        assert snap_compare(ScreenHost(screen))

    def test_prefilled_wide(self, snap_compare: SnapCompare) -> None:
        """The same editor at 140x40, centred, 84 columns wide."""
        screen = MemoryEditor(self.DRAFT, heading="Pin message 12", note="From message #12.")
        assert snap_compare(ScreenHost(screen), terminal_size=WIDE)

    def test_empty_text_refused(self, snap_compare: SnapCompare) -> None:
        """A new, empty entry after ctrl+s: "The text cannot be empty." in red above the
        buttons; the editor stays open."""
        assert snap_compare(ScreenHost(MemoryEditor()), press=["ctrl+s"])


class TestEditMessage:
    def test_edit_with_later_turns(self, snap_compare: SnapCompare) -> None:
        """ "Edit and resend" with the old question in the editor and the choice for the 4
        later messages: keep them as a branch (selected) or replace them."""
        screen = EditMessageScreen(5, "How do I read a TOML file in Python 3.11?", 4)
        assert snap_compare(ScreenHost(screen))


class TestConversationSwitcher:
    def test_all_conversations(self, snap_compare: SnapCompare) -> None:
        """80x24: four conversations, two lines each (title; messages · tokens · date in UTC);
        the current one (Trip to Lisbon) has a green dot and is highlighted; the title with
        [bold] shows literally."""
        assert snap_compare(ScreenHost(ConversationSwitcher(ROWS, current_id=2)))

    def test_search_text(self, snap_compare: SnapCompare) -> None:
        """After typing "config": only "TOML config loading" and "Config precedence rules",
        with "config" in reverse video in each."""
        screen = ConversationSwitcher(ROWS, current_id=2)
        assert snap_compare(ScreenHost(screen), press=list("config"))

    def test_search_text_wide(self, snap_compare: SnapCompare) -> None:
        """The same search at 140x40."""
        screen = ConversationSwitcher(ROWS, current_id=2)
        assert snap_compare(ScreenHost(screen), press=list("config"), terminal_size=WIDE)

    def test_list_focused(self, snap_compare: SnapCompare) -> None:
        """After tab: the list has focus and the footer offers ^n New, ^r Rename, del Delete,
        ^s Export and ^f Search."""
        assert snap_compare(ScreenHost(ConversationSwitcher(ROWS)), press=["tab"])

    def test_delete_asks(self, snap_compare: SnapCompare) -> None:
        """tab, delete: the red confirmation to delete "TOML config loading" over the
        switcher."""
        assert snap_compare(ScreenHost(ConversationSwitcher(ROWS)), press=["tab", "delete"])


class TestSwitcherDialogs:
    def test_rename(self, snap_compare: SnapCompare) -> None:
        """ "Rename conversation" with the old title (markup shown literally) in the input and
        Cancel / Rename."""
        assert snap_compare(ScreenHost(RenameScreen("Refactor the [bold]store[/bold] module")))

    def test_rename_refused(self, snap_compare: SnapCompare) -> None:
        """The title cleared and enter pressed: "A title cannot be empty." in red."""

        async def run_before(pilot: Pilot[None]) -> None:
            pilot.app.screen.query_one("#rename-input", Input).value = ""
            await pilot.press("enter")

        assert snap_compare(ScreenHost(RenameScreen("Old title")), run_before=run_before)

    def test_export_format(self, snap_compare: SnapCompare) -> None:
        """ "Export “TOML config loading”", a sentence on the two formats, the folder it goes
        to (editable), and Cancel / JSON / Markdown (focused)."""
        folder = Path("/home/ada/.local/share/ctxchat/exports")
        assert snap_compare(ScreenHost(ExportFormatScreen("TOML config loading", folder)))


class TestSummary:
    def test_versions(self, snap_compare: SnapCompare) -> None:
        """80x24: v3 (active, edited), v2 and v1 on the left, v3 highlighted; on the right
        "v3  messages #1–#42 · keyvalue · edited by hand · 44 tokens · 2025-01-06 08:30" and
        its four key: value lines; the footer has Close, Edit, Rebuild, Summarize now (Roll
        back dimmed: v3 is already active)."""
        assert snap_compare(ScreenHost(SummaryScreen(VERSIONS)))

    def test_versions_wide_older_selected(self, snap_compare: SnapCompare) -> None:
        """140x40 with v1 selected: its prose text and range #1–#12; Roll back enabled."""
        screen = SummaryScreen(VERSIONS)
        assert snap_compare(ScreenHost(screen), press=["down", "down"], terminal_size=WIDE)

    def test_editing(self, snap_compare: SnapCompare) -> None:
        """After ctrl+e: the right side is a text area with v3's text; the footer offers Save."""
        assert snap_compare(ScreenHost(SummaryScreen(VERSIONS)), press=["ctrl+e"])

    def test_no_summary_yet(self, snap_compare: SnapCompare) -> None:
        """No versions: a sentence saying there is no summary yet and that s summarizes now."""
        assert snap_compare(ScreenHost(SummaryScreen([])))

    def test_summarize_preview(self, snap_compare: SnapCompare) -> None:
        """80x24: "Fold 12 messages (#1–#12, 246 tokens) into summary v4 with the keyvalue
        strategy.", a list of the turns (id, role, tokens, start of text), the note that
        originals stay stored, and Cancel / Summarize 12."""
        screen = SummarizePreview(FOLDED, next_version=4, strategy=SummaryStrategy.KEYVALUE)
        assert snap_compare(ScreenHost(screen))

    def test_summarize_preview_wide(self, snap_compare: SnapCompare) -> None:
        """The same preview at 140x40, every turn visible."""
        screen = SummarizePreview(FOLDED, next_version=4, strategy=SummaryStrategy.KEYVALUE)
        assert snap_compare(ScreenHost(screen), terminal_size=WIDE)


class TestExtractionReview:
    def test_proposals_with_problems(self, snap_compare: SnapCompare) -> None:
        """80x24: a yellow line "⚠ 2 problems in the model's reply: …", then four undecided
        proposals (kind, importance, text; the first marked "↻?" with "proposed: update memory
        #4 (enter)", its conflict side by side below the list), the tally "0 to add · 0 to update · 0 rejected · 4 undecided"."""
        assert snap_compare(ScreenHost(ExtractionReview(PROPOSALS, PROBLEMS)))

    def test_conflict_side_by_side_wide(self, snap_compare: SnapCompare) -> None:
        """140x40: the first proposal highlighted, marked "↻?" (cyan) with "proposed: update
        memory #4 (enter)"; below the list two boxes side by side, "memory #4 now" holding
        "The project uses Python 3.10." and "proposed (u: update, a: add as new)" holding
        "The project targets Python 3.11."."""
        assert snap_compare(ScreenHost(ExtractionReview(PROPOSALS, PROBLEMS)), terminal_size=WIDE)

    def test_decisions_made_wide(self, snap_compare: SnapCompare) -> None:
        """140x40 after u, a, x: the first marked ↻ (update), the second ✓, the third ✗ and
        struck through; the fourth highlighted and undecided; the tally counts them."""
        screen = ExtractionReview(PROPOSALS, PROBLEMS)
        assert snap_compare(
            ScreenHost(screen), press=["ctrl+u", "ctrl+a", "ctrl+x"], terminal_size=WIDE
        )


class TestSetup:
    def test_found_server(self, snap_compare: SnapCompare) -> None:
        """80x24 first run: the welcome text, three choices with "Ollama at
        http://127.0.0.1:11434/v1 (3 models)" selected, its URL (disabled), model llama3.2:3b
        and an empty key variable, and the list of the server's models."""
        screen = SetupScreen(
            SERVERS, openai_key_present=True, config_path="~/.config/ctxchat/config.toml"
        )
        assert snap_compare(ScreenHost(screen))

    def test_found_server_wide(self, snap_compare: SnapCompare) -> None:
        """The same at 140x40, centred in a 96-column column; Quit / Save and start visible."""
        screen = SetupScreen(
            SERVERS, openai_key_present=True, config_path="~/.config/ctxchat/config.toml"
        )
        assert snap_compare(ScreenHost(screen), terminal_size=WIDE)

    def test_a_model_on_this_machine(self, snap_compare: SnapCompare) -> None:
        """80x24, nothing found and no OPENAI_API_KEY, the engine installed: "A model on this
        machine (SmolLM2 135M, 94 MB, no key)" first and selected, no
        address or key fields, what the model is for and how to use a bigger one, the focus on
        the choices (Enter on the one chosen starts)."""
        screen = SetupScreen(
            [],
            openai_key_present=False,
            config_path="~/.config/ctxchat/config.toml",
            engine=EngineOffer("SmolLM2 135M", 98_362_432),
        )
        assert snap_compare(ScreenHost(screen))

    def test_model_files_found_on_this_machine(self, snap_compare: SnapCompare) -> None:
        """80x24, the engine installed and two GGUF files found: the small model, then
        "qwen2.5-1.5b-instruct-q4_k_m (1.0 GB, LM Studio)" chosen with its path and what
        choosing it writes, then "llama-3.1-70b (40.0 GB, Hugging Face) more than the memory
        free"."""
        files = [
            FoundModel(
                "qwen2.5-1.5b-instruct-q4_k_m",
                Path("/home/u/.lmstudio/models/qwen/qwen2.5-1.5b-instruct-q4_k_m.gguf"),
                "LM Studio",
                1024**3,
                fits=True,
            ),
            FoundModel(
                "llama-3.1-70b", Path("/m/llama-3.1-70b.gguf"), "Hugging Face", 40 * 1024**3, False
            ),
        ]
        screen = SetupScreen(
            [],
            openai_key_present=False,
            config_path="~/.config/ctxchat/config.toml",
            engine=EngineOffer("SmolLM2 135M", 98_362_432),
            files=files,
        )

        async def choose_the_file(pilot: Pilot[None]) -> None:
            screen.query_one("#setup-provider").focus()
            await pilot.press("down", "enter")

        assert snap_compare(ScreenHost(screen), run_before=choose_the_file)

    def test_no_server_found(self, snap_compare: SnapCompare) -> None:
        """80x24, nothing found and no OPENAI_API_KEY: OpenAI selected with "(uses
        OPENAI_API_KEY: not set)", the note that no local server answered, and the yellow
        warning to set the key."""
        assert snap_compare(ScreenHost(SetupScreen([], openai_key_present=False)))

    def test_another_server_refused(self, snap_compare: SnapCompare) -> None:
        """140x40: "Another server" chosen and saved empty: two red sentences (base URL, model)."""

        async def run_before(pilot: Pilot[None]) -> None:
            await pilot.click("#provider-custom")
            await pilot.press("ctrl+s")

        screen = SetupScreen([], openai_key_present=False)
        assert snap_compare(ScreenHost(screen), terminal_size=WIDE, run_before=run_before)


TYPED_URL = "http://127.0.0.1:8080/v1"
TYPED_KEY = "sk-snapshot-0123456789abcdef"


async def served(url: str, key: str | None) -> UrlAnswer:
    """What a llama.cpp server serving two models answers (the real probe is asked in
    tests/app/test_app_setup_probe.py; a picture needs a URL that never changes)."""
    return UrlAnswer("found", FoundServer("llama.cpp", url, ("gemma-3-270m", "qwen2.5:0.5b")))


def typed_into_setup(*, key: str = "") -> Any:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.click("#provider-custom")
        screen = pilot.app.screen
        screen.query_one("#setup-url", Input).value = TYPED_URL
        if key:
            screen.query_one("#setup-key", Input).value = key
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        for field in screen.query(Input):
            field.cursor_blink = False

    return run_before


class TestSetupProbe:
    def test_probed_url_lists_its_models(self, snap_compare: SnapCompare) -> None:
        """140x40: "Another server" chosen, `http://127.0.0.1:8080/v1` typed; in green
        `✓ llama.cpp server at http://127.0.0.1:8080/v1: 2 models.`, the model filled with
        `gemma-3-270m`, and `Models on this server: gemma-3-270m, qwen2.5:0.5b.`"""
        screen = SetupScreen([], config_path="~/.config/ctxchat/config.toml", probe=served)
        assert snap_compare(ScreenHost(screen), terminal_size=WIDE, run_before=typed_into_setup())

    def test_masked_key(self, snap_compare: SnapCompare) -> None:
        """As above with a key typed: the API key field shows only dots, `Save the key in
        the config file` is checked, and `The key is written to
        ~/.config/ctxchat/config.toml, readable only by you (mode 0600).`"""
        screen = SetupScreen([], config_path="~/.config/ctxchat/config.toml", probe=served)
        run_before = typed_into_setup(key=TYPED_KEY)
        assert snap_compare(ScreenHost(screen), terminal_size=WIDE, run_before=run_before)


class TestErrorDetails:
    def test_error_with_detail(self, snap_compare: SnapCompare) -> None:
        """A red-bordered "The request failed" dialog: the sentence in bold, the action, the
        server's text in a shaded box, Close and Retry (focused)."""
        screen = ErrorDetails(
            "The prompt is longer than the model's context window.",
            "Summarize now, or lower the working share.",
            detail='{"error": {"code": "context_length_exceeded", "message": "4097 > 4096"}}',
            can_retry=True,
        )
        assert snap_compare(ScreenHost(screen))


def test_fixed_clock_is_used() -> None:
    # The snapshots print dates derived from NOW in UTC; this pins it.
    import time

    assert time.strftime("%Y-%m-%d %H:%M", time.gmtime(NOW)) == "2025-01-06 09:30"
