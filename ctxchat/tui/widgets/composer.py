"""The message composer: Enter sends, Shift+Enter or Ctrl+J starts a new line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea

from ctxchat.safe_text import controls_shown
from ctxchat.tui.actions import bindings_for, default_keys
from ctxchat.tui.clipboard import line_count

IN_ORDER_KEYS = frozenset(
    {
        *("backspace", "delete", "ctrl+w", "ctrl+u", "ctrl+k"),
        *("left", "right", "up", "down", "home", "end", "ctrl+left", "ctrl+right"),
    }
)
"""The editing keys run in the composer's own queue, in order with the letters: as
bindings they would run in the app's, after the keys that followed them in a burst
(`hello wrold`, four Backspaces and `orld` gave `hello wrold`). Tab and Shift+Tab stay
bindings: an arrow sent in the same burst as them still moves the composer's cursor
(moving focus at once reordered the letters typed after them under load)."""


def _editing_actions() -> dict[str, str]:
    """The action TextArea binds to each of `IN_ORDER_KEYS`."""
    actions: dict[str, str] = {}
    for binding in TextArea.BINDINGS:
        if isinstance(binding, Binding):
            for key in binding.key.split(","):
                if key.strip() in IN_ORDER_KEYS:
                    actions[key.strip()] = binding.action
    return actions


EDITING_ACTIONS = _editing_actions()


class Composer(TextArea):
    """Where the next message is written; its token count shows live in the input panel.

    Sending, new lines and the editing keys are handled with the keys, in the composer's
    own queue: a key that arrives in a burst right after Enter is typed after the sent
    text, never before it or into it, and a Backspace or an arrow acts where it was typed
    (a binding would run in the app's queue, out of order with the typing).
    """

    DEFAULT_CSS = """
    Composer {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: tall $primary 40%;
        &:focus {
            border: tall $primary;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("Composer")

    @dataclass
    class Submitted(Message):
        """The user sent `text`; the composer no longer holds it (`restore` puts it back)."""

        composer: Composer
        text: str

        @property
        def control(self) -> Composer:
            return self.composer

    @dataclass
    class SentEmpty(Message):
        """Enter was pressed with nothing to send: messages held in a queue may go on."""

    @dataclass
    class Cleared(Message):
        """The draft of `lines` lines was cleared (undo brings it back)."""

        lines: int

    @dataclass
    class EditLastRequested(Message):
        """Edit the user's last message of the conversation and send it again."""

    @dataclass
    class PageAsked(Message):
        """PageUp (`step` -1) or PageDown (1) in the composer: the conversation scrolls."""

        step: int

    def __init__(
        self,
        *,
        id: str | None = None,
        send_keys: Iterable[str] = default_keys("composer.send"),
        newline_keys: Iterable[str] = default_keys("composer.newline"),
        edit_last_keys: Iterable[str] = default_keys("composer.edit_last"),
        clear_keys: Iterable[str] = default_keys("composer.clear"),
        given_away: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder="Write a message — Enter sends, Shift+Enter or Ctrl+J for a new line",
        )
        self.send_keys = frozenset(send_keys)
        self.newline_keys = frozenset(newline_keys)
        self.edit_last_keys = frozenset(edit_last_keys)
        self.clear_keys = frozenset(clear_keys)
        """Handled with the keys too: ctrl+u, the shipped one, is also an editing key."""
        self.given_away = dict(given_away or {})
        """Keys `[keys]` gives to another action (`given_in_composer`): that action runs,
        in order with the typing, rather than the composer's own meaning of the key."""
        self.edits = 0
        """How many times the text has changed (typed, sent, pasted, put back)."""
        self._drafts: dict[int | None, str] = {}

    @on(TextArea.Changed)
    def _count_edit(self) -> None:
        self.edits += 1

    def switch_draft(self, left: int | None, shown: int | None) -> None:
        """Conversation `left` is left for `shown`: a draft belongs to its conversation, so
        the text typed stays with `left` (for this run), and the one `shown` was left with
        comes back."""
        text = self.text
        if text.strip():
            self._drafts[left] = text
        else:
            self._drafts.pop(left, None)
        self.load_text(self._drafts.pop(shown, ""))
        self.move_cursor(self.document.end)

    def restore_drafts(self, drafts: Mapping[int, str], shown: int | None) -> None:
        """Take back the drafts the last run left (`shown`'s into the box, before anything
        typed meanwhile)."""
        self._drafts.update(drafts.items())
        kept = self._drafts.pop(shown, "")
        if kept:
            self.load_text(kept + self.text)
            self.move_cursor(self.document.end)

    def every_draft(self, shown: int | None) -> dict[int, str]:
        """The unsent text of each conversation (`shown`'s is what the box holds)."""
        drafts = {**self._drafts, shown: self.text}
        return {
            conversation: text
            for conversation, text in drafts.items()
            if conversation is not None and text.strip()
        }

    async def on_key(self, event: events.Key) -> None:
        given = self.given_away.get(event.key)
        if given is not None and await self.app.run_action(given, self):
            event.stop()
            event.prevent_default()
            return
        if event.key in self.send_keys:
            action = self.action_submit
        elif event.key in self.newline_keys:
            action = self.action_newline
        elif event.key in self.clear_keys:
            action = self.action_clear_draft
        elif event.key in EDITING_ACTIONS:
            event.stop()
            event.prevent_default()
            await self.run_action(EDITING_ACTIONS[event.key])
            return
        else:
            return
        event.stop()
        event.prevent_default()
        action()

    @on(events.Key)
    def _edit_last_when_empty(self, event: events.Key) -> None:
        """↑ in an empty composer edits the last message (as in a shell; not while a reply
        to it is written: the column says no); with text it moves the cursor as ever. Run
        before `on_key`, which then moves the cursor of an empty box: nowhere."""
        if event.key in self.edit_last_keys and not self.text:
            event.stop()
            event.prevent_default()
            self.action_edit_last()

    def on_paste(self, event: events.Paste) -> None:
        """Insert the pasted text with its control characters shown (`\x1b` as `␛`): the box
        shows what will be sent, and never writes a pasted escape sequence to the terminal."""
        event.prevent_default()
        if self.read_only:
            return
        start, end = self.selection
        pasted = self.replace(
            controls_shown(event.text), start, end, maintain_selection_offset=False
        )
        self.move_cursor(pasted.end_location)

    def action_submit(self) -> None:
        """Take the draft out and post it: what is typed from now on starts the next one.
        Whether it goes now or waits for a reply streaming is decided where it arrives, in
        the order the Enters were pressed: never here, ahead of it (a decision taken
        before the last message sent had reached the column let a later message be put
        back before an earlier one)."""
        text = self.text
        if text.strip():
            self.clear()
            self.post_message(self.Submitted(self, text))
        else:
            self.post_message(self.SentEmpty())

    def action_page(self, step: int) -> None:
        self.post_message(self.PageAsked(step))

    def action_newline(self) -> None:
        self.insert("\n")

    def restore(self, text: str) -> None:
        """Put back a draft that was not sent, before whatever was typed since.

        Done in the composer's queue, after the keys already on their way to it.
        """
        self.call_later(self._put_back, text)

    def take_back(self, text: str) -> None:
        """Put `text` (a message taken back to edit) after what the box holds, on a line of
        its own, the cursor at its end; in the composer's queue, after the keys on their way
        to it. Taken back one after another, texts stay in that order."""
        self.call_later(self._add_after, text)

    def _add_after(self, text: str) -> None:
        held = self.text
        self.load_text(f"{held}\n{text}" if held.strip() else text)
        self.move_cursor(self.document.end)

    def _put_back(self, text: str) -> None:
        typed_since = self.text
        self.load_text(text if not typed_since else f"{text}\n{typed_since}")
        self.move_cursor(self.document.end)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Enter sends, or queues while a reply is written: the footer names the one it does.
        if action in ("submit", "queue"):
            return bool(getattr(self.screen, "streaming", False)) == (action == "queue")
        return True

    def action_queue(self) -> None:
        """Send the draft, which waits under the reply being written (as Enter does then)."""
        self.action_submit()

    def action_clear_draft(self) -> None:
        """Clear the whole draft in one step, which undo brings back in one step."""
        if not self.text:
            return
        lines = line_count(self.text)
        # Checkpoints: undo takes back the clearing alone, not the typing just before it.
        self.history.checkpoint()
        self.clear()
        self.history.checkpoint()
        self.post_message(self.Cleared(lines))

    def action_edit_last(self) -> None:
        self.post_message(self.EditLastRequested())

    def action_open_in_editor(self) -> None:
        """Write the draft in the user's editor; what it holds when the editor exits becomes
        the draft (undo brings back the one before). A failing editor changes nothing."""
        self.run_worker(self._edit_in_editor(), group="editor", exclusive=True)

    async def _edit_in_editor(self) -> None:
        from ctxchat.tui.draft_editor import edit_draft

        edited = await edit_draft(self.app, self.text)
        if edited.text is None:
            self.notify(edited.problem, severity="warning", markup=False)
            return
        self.history.checkpoint()
        # Shown as a paste is (`\x1b` as `␛`): the box shows what will be sent.
        written = self.replace(controls_shown(edited.text), (0, 0), self.document.end)
        self.history.checkpoint()
        self.move_cursor(written.end_location)
        self.focus()
