"""The message composer: Enter sends, Shift+Enter or Ctrl+J starts a new line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea


class Composer(TextArea):
    """Where the next message is written; its token count shows live in the input panel."""

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

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority, so Enter sends instead of TextArea inserting a newline.
        Binding(
            "enter",
            "submit",
            "Send",
            priority=True,
            id="composer.send",
            tooltip="Send the message",
        ),
        Binding(
            "shift+enter,ctrl+j",
            "newline",
            "New line",
            show=False,
            id="composer.newline",
            tooltip="Start a new line in the message",
        ),
    ]

    @dataclass
    class Submitted(Message):
        """The user sent `text` (the composer is not cleared: the app decides)."""

        composer: Composer
        text: str

        @property
        def control(self) -> Composer:
            return self.composer

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder="Write a message — Enter sends, Shift+Enter or Ctrl+J for a new line",
        )

    def action_submit(self) -> None:
        if self.text.strip():
            self.post_message(self.Submitted(self, self.text))

    def action_newline(self) -> None:
        self.insert("\n")
