"""Before summarizing by hand: which turns will be folded, how many and how many tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.core.history import preview
from ctxchat.core.summary import SummaryStrategy
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, tokens
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.footer import KeyFooter

ROLE_SHORT = {"user": "you", "assistant": "assistant", "system": "system"}


def fold_line(view: MessageView, width: int = 120) -> Text:
    """One turn as a line of the preview: id, role, token count, start of the text."""
    line = Text()
    line.append(f"#{view.id:<6}", style="dim")
    line.append(f"{ROLE_SHORT.get(view.role, view.role):<10}", style="bold")
    line.append(f"{tokens(view.tokens):>7} tok  ", style="dim")
    line.append(preview(clean(view.content), width))
    return line


LISTED = 200
"""Turns listed one per line; the headline counts them all."""


class SummarizePreview(Dialog[bool]):
    """The turns "summarize now" would fold; dismisses True to go ahead, False to cancel."""

    DEFAULT_CSS = """
    SummarizePreview {
        & > Vertical {
            width: 95%;
            max-width: 120;
            height: auto;
            max-height: 90%;
            padding: 0 1;
        }
        #preview-headline {
            height: auto;
            margin: 1 0 0 0;
        }
        #preview-note {
            height: auto;
            color: $text-muted;
            margin-top: 1;
        }
        OptionList {
            margin-top: 1;
            height: auto;
            max-height: 35vh;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        #preview-buttons {
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("SummarizePreview")

    def __init__(
        self,
        messages: Sequence[MessageView],
        *,
        next_version: int,
        strategy: SummaryStrategy = SummaryStrategy.SUMMARIZE,
    ) -> None:
        super().__init__()
        self._messages = list(messages)
        self._next_version = next_version
        self._strategy = strategy

    def compose(self) -> ComposeResult:
        count = len(self._messages)
        total = sum(m.tokens for m in self._messages)
        with Vertical() as dialog:
            dialog.border_title = "Summarize now"
            if not count:
                yield Static(
                    "Nothing to fold: every message is still in working memory or already "
                    "in the summary.",
                    id="preview-headline",
                    markup=False,
                )
            else:
                first, last = self._messages[0].id, self._messages[-1].id
                headline = Text("Fold ")
                headline.append(f"{count:,} message{'s' if count != 1 else ''}", style="bold")
                headline.append(f" (#{first}–#{last}, {tokens(total)} tokens) into summary ")
                headline.append(f"v{self._next_version}", style="bold")
                headline.append(f" with the {self._strategy.value} strategy.")
                yield Static(headline, id="preview-headline")
                listed = [Option(fold_line(m)) for m in self._messages[:LISTED]]
                if count > LISTED:
                    more = f"… and {count - LISTED:,} more, up to #{last}"
                    listed.append(Option(Text(more, style="dim"), disabled=True))
                yield OptionList(*listed, id="preview-list")
                yield Static(
                    "The originals stay stored; the summary replaces them in the context. "
                    "You can roll back or rebuild from the summary versions.",
                    id="preview-note",
                    markup=False,
                )
            with Horizontal(id="preview-buttons", classes="dialog--buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(
                    f"Summarize {count:,}",
                    id="confirm",
                    variant="primary",
                    disabled=not count,
                )
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#confirm" if self._messages else "#cancel", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return bool(self._messages) or action != "confirm"

    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)
