"""Choose which of a message's code blocks to copy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.core.counts import counted
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.code_blocks import CodeBlock
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import content


def block_option(number: int, block: CodeBlock) -> Content:
    """A block as the list shows it: its number, language and size, then its first line."""
    head = f"{number}. {block.language or 'code'} · {counted(block.lines, 'line')}"
    return Content.assemble(content(head, "bold"), "\n   ", content(block.first_line, "dim"))


class CodeBlockPicker(Dialog[int | None]):
    """The blocks in order; the index of the one picked, None on Esc."""

    DEFAULT_CSS = """
    CodeBlockPicker {
        & > Vertical {
            width: 72;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            padding: 1 2;
        }
        OptionList {
            height: auto;
            max-height: 20;
        }
        .dialog--note {
            color: $text-muted;
            height: auto;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("CodeBlockPicker")

    def __init__(self, blocks: Sequence[CodeBlock]) -> None:
        super().__init__()
        self._blocks = list(blocks)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Copy which code block?", classes="dialog--title")
            yield OptionList(
                *(
                    Option(block_option(number, block), id=str(number - 1))
                    for number, block in enumerate(self._blocks, start=1)
                ),
                id="code-blocks",
            )
            yield Static("Enter copies; Esc copies nothing.", classes="dialog--note")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
