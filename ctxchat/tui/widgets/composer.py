"""The message composer: Enter sends, Shift+Enter or Ctrl+J starts a new line."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea

from ctxchat.safe_text import controls_shown
from ctxchat.tui.actions import bindings_for, default_keys

if TYPE_CHECKING:
    from ctxchat.tui.live_turn import LiveTurn

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
    class SendHeld(Message):
        """Enter was pressed while sending is held (a reply is being written): it made a
        new line instead, so the next words do not run into these."""

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
    ) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder="Write a message — Enter sends, Shift+Enter or Ctrl+J for a new line",
        )
        self._waits_for: LiveTurn | None = None
        self.send_keys = frozenset(send_keys)
        self.newline_keys = frozenset(newline_keys)
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

    @property
    def can_send(self) -> bool:
        """False while a reply is being written (asked of its turn): Enter then starts a
        new line."""
        return self._waits_for is None or not self._waits_for.streaming

    def wait_for(self, live: LiveTurn) -> None:
        """Hold sending until the reply `live` streams has ended."""
        self._waits_for = live

    async def on_key(self, event: events.Key) -> None:
        if event.key in self.send_keys and not self.can_send:
            action = self._hold
        elif event.key in self.send_keys:
            action = self.action_submit
        elif event.key in self.newline_keys:
            action = self.action_newline
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
        """Take the draft out and post it: what is typed from now on starts the next one."""
        text = self.text
        if text.strip():
            self.clear()
            self.post_message(self.Submitted(self, text))

    def action_page(self, step: int) -> None:
        self.post_message(self.PageAsked(step))

    def action_newline(self) -> None:
        self.insert("\n")

    def _hold(self) -> None:
        self.action_newline()
        self.post_message(self.SendHeld())

    def restore(self, text: str) -> None:
        """Put back a draft that was not sent, before whatever was typed since.

        Done in the composer's queue, after the keys already on their way to it.
        """
        self.call_later(self._put_back, text)

    def _put_back(self, text: str) -> None:
        typed_since = self.text
        self.load_text(text if not typed_since else f"{text}\n{typed_since}")
        self.move_cursor(self.document.end)
