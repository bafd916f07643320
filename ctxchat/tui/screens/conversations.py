"""The conversation switcher: find a conversation by title or by what its messages say, then
switch (to the message found), rename, delete or export."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.console import Group
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.chat.deletion import ConversationDeletion
from ctxchat.core.counts import counted
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.delete_conversation import DeleteChoice, DeleteConversationScreen
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.screens.rename import RenameScreen
from ctxchat.tui.snippet import snippet
from ctxchat.tui.text import clean, plain, tokens
from ctxchat.tui.views import ConversationRowView, MessageHitView
from ctxchat.tui.widgets.footer import KeyFooter

SwitcherAction = Literal["switch", "new", "rename", "delete", "export", "import"]


@dataclass(frozen=True, slots=True)
class SwitcherResult:
    """What the user chose; the app does the work.

    `conversation_id` is None only for "new"; `title` is set for "rename"; `message_id`
    is the message to open the conversation at (the search found it there).
    """

    action: SwitcherAction
    conversation_id: int | None = None
    title: str | None = None
    message_id: int | None = None
    with_memory: bool = False
    """For "delete": the conversation's own memory entries go too (else they are kept)."""


FindMessages = Callable[[str], Mapping[int, MessageHitView]]
"""`find(query)`: per conversation id, the messages holding every word of `query`."""


def matches(title: str, query: str) -> bool:
    """Every word of the query appears in the title, ignoring case."""
    folded = title.casefold()
    return all(word in folded for word in query.casefold().split())


def row_prompt(
    row: ConversationRowView, query: str, current: bool, hit: MessageHitView | None = None
) -> Text | Group:
    """Two lines: the title (search words emphasised), then its size and when it changed;
    and, for a conversation found by a message, a third: that message around the words."""
    title = plain(row.title or "Untitled", style="bold")
    for word in query.split():
        title.highlight_words([word], style="reverse", case_sensitive=False)
    prompt = Text()
    prompt.append("● " if current else "  ", style="green" if current else "")
    prompt.append_text(title)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.updated_at))
    prompt.append(
        f"\n  {counted(row.message_count, 'message')} · {tokens(row.tokens)} tokens · {when}",
        style="dim",
    )
    if row.origin:
        prompt.append(f" · from {row.origin}", style="dim")
    if row.project:
        prompt.append(" · project ", style="dim")
        prompt.append_text(plain(row.project, style="dim bold"))
    if hit is None:
        return prompt
    found = "1 message matches" if hit.count == 1 else f"{hit.count:,} messages match"
    prompt.append(f" · {found}", style="dim")
    # Ends with a new line: the list counts a rendered group's lines by them.
    line = Text("  ↳ ", style="dim", no_wrap=True, overflow="ellipsis")
    line.append_text(snippet(hit.content, query))
    # A group, so the snippet line is cut at the list's width rather than wrapped.
    return Group(prompt, line)


class SwitcherSearch(Input):
    """The switcher's search box: Enter opens the highlighted conversation once the letters
    typed before it have searched (its own key, in the order typed)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("SwitcherSearch")


class SwitcherList(OptionList):
    """The conversations found: Enter opens the highlighted one (its own key, so one typed
    right after an arrow opens where the arrow moved to)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("SwitcherList")

    def action_submit(self) -> None:
        self.action_select()


class ConversationSwitcher(Dialog[SwitcherResult | None]):
    """Searchable list of conversations; dismisses with a `SwitcherResult` or None.

    Typing goes to the search box, from the list too (type to search); the commands are on
    chords and Delete, which act on the highlighted conversation (enter switches).
    """

    DEFAULT_CSS = """
    ConversationSwitcher {
        & > Vertical {
            width: 90%;
            max-width: 110;
            height: 90%;
            max-height: 36;
            padding: 0 1;
        }
        Input {
            margin: 1 0 0 0;
        }
        OptionList {
            height: 1fr;
            margin: 1 0 0 0;
        }
        #switcher-empty {
            height: auto;
            color: $text-muted;
            padding: 1 1 0 1;
            display: none;
        }
        &.-empty #switcher-empty {
            display: block;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("ConversationSwitcher")

    def __init__(
        self,
        rows: Sequence[ConversationRowView],
        *,
        current_id: int | None = None,
        query: str = "",
        find_messages: FindMessages | None = None,
        deletion_of: Callable[[int], ConversationDeletion] | None = None,
    ) -> None:
        """`find_messages` searches the messages' text (without it, titles only);
        `deletion_of` says what deleting a conversation would delete and keep."""
        super().__init__()
        self._deletion_of = deletion_of
        self._rows = list(rows)
        self._current_id = current_id
        self._initial_query = query
        self._find_messages = find_messages
        self._hits: Mapping[int, MessageHitView] = {}

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = "Conversations"
            searched = "Titles and messages" if self._find_messages else "Search by title"
            yield SwitcherSearch(
                self._initial_query,
                placeholder=f"{searched}…   (↑↓ pick, enter opens)",
                id="switcher-search",
            )
            yield Static("", id="switcher-empty")
            yield SwitcherList(id="switcher-list")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._refill(self._initial_query)
        self.query_one(Input).focus()

    @property
    def visible_ids(self) -> list[int]:
        """The conversations the search shows, in order."""
        option_list = self.query_one(OptionList)
        return [int(option.id or 0) for option in option_list.options]

    def _refill(self, query: str) -> None:
        option_list = self.query_one(OptionList)
        searched = self._find_messages is not None and bool(query.strip())
        found = self._find_messages(query) if searched and self._find_messages else {}
        # Found by its title: opened as usual. Found only by a message: opened there.
        self._hits = {
            row.id: found[row.id]
            for row in self._rows
            if row.id in found and not matches(row.title, query)
        }
        shown = [row for row in self._rows if matches(row.title, query) or row.id in self._hits]
        option_list.set_options(
            Option(
                row_prompt(row, query, row.id == self._current_id, self._hits.get(row.id)),
                id=str(row.id),
            )
            for row in shown
        )
        if shown:
            current = [i for i, row in enumerate(shown) if row.id == self._current_id]
            option_list.highlighted = current[0] if current and not query else 0
        empty = self.query_one("#switcher-empty", Static)
        if not self._rows:
            empty.update("No conversations yet: press ctrl+n for a new one.")
        elif not shown:
            what = "title or message" if self._find_messages is not None else "title"
            empty.update(plain(f"No conversation {what} matches “{clean(query)}”."))
        self.set_class(not shown, "-empty")
        self.refresh_bindings()

    def _highlighted(self) -> ConversationRowView | None:
        option = self.query_one(OptionList).highlighted_option
        if option is None:
            return None
        return next((row for row in self._rows if str(row.id) == option.id), None)

    @on(Input.Changed, "#switcher-search")
    def _search(self, event: Input.Changed) -> None:
        self._refill(event.value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        typing = isinstance(self.focused, Input)
        if action == "delete" and typing:
            return None  # shown dimmed: in the search box, delete deletes a character
        if action in ("rename", "delete", "export"):
            return True if self._highlighted() is not None else None
        if action == "search":
            return not typing
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_key(self, event: events.Key) -> None:
        # Type to search: a letter (or backspace) typed in the list edits the search, in
        # the order typed, and the list keeps the focus (moving it mid-burst would let the
        # keys after it overtake the ones still on their way).
        if not isinstance(self.focused, OptionList):
            return
        search = self.query_one(Input)
        if event.is_printable and event.character is not None:
            search.insert_text_at_cursor(event.character)
        elif event.key == "backspace":
            search.action_delete_left()
        else:
            return
        event.stop()
        event.prevent_default()

    def action_move(self, step: int) -> None:
        option_list = self.query_one(OptionList)
        if step > 0:
            option_list.action_cursor_down()
        else:
            option_list.action_cursor_up()

    def action_search(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#switcher-search")
    @on(OptionList.OptionSelected)
    def _open(self) -> None:
        row = self._highlighted()
        if row is not None:
            hit = self._hits.get(row.id)
            message_id = None if hit is None else hit.message_id
            self.dismiss(SwitcherResult("switch", row.id, message_id=message_id))

    def action_new(self) -> None:
        self.dismiss(SwitcherResult("new"))

    def action_rename(self) -> None:
        row = self._highlighted()
        if row is None:
            return

        def renamed(title: str | None) -> None:
            if title is not None and title != row.title:
                self.dismiss(SwitcherResult("rename", row.id, title=title))

        self.app.push_screen(RenameScreen(row.title), renamed)

    def action_delete(self) -> None:
        row = self._highlighted()
        if row is None:
            return

        def confirmed(choice: DeleteChoice | None) -> None:
            if choice is not None:
                with_memory = choice == "with-memory"
                self.dismiss(SwitcherResult("delete", row.id, with_memory=with_memory))

        if self._deletion_of is not None:
            deletion = self._deletion_of(row.id)
        else:
            deletion = ConversationDeletion(row.id, row.title, row.message_count, ())
        self.app.push_screen(DeleteConversationScreen(deletion), confirmed)

    def action_export(self) -> None:
        row = self._highlighted()
        if row is not None:
            # The app asks for the format and the folder.
            self.dismiss(SwitcherResult("export", row.id))

    def action_import(self) -> None:
        # The app asks for the file and imports it.
        self.dismiss(SwitcherResult("import"))

    def action_close(self) -> None:
        search = self.query_one(Input)
        if search.value:
            search.value = ""
            search.focus()
            return
        self.dismiss(None)
