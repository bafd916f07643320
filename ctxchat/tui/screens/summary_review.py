"""Reviewing a summary before it stays: its text (editable) and what the folded turns held
that it does not, each item added back with a key; the list follows the text as it changes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_loss import LostDetail, add_back
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.confirm import ConfirmScreen
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean
from ctxchat.tui.widgets.footer import KeyFooter

NOTHING_LOST = "Nothing the folded turns held is missing."

Report = Callable[[str], Sequence[LostDetail]]
"""What a text (the summary as edited) still lacks of what the model's text lost."""


def lost_line(item: LostDetail) -> Text:
    """One lost detail as the review lists it: its kind, the detail as written, its turn."""
    line = Text(no_wrap=True, overflow="ellipsis", end="")
    line.append(f"{item.kind.value:<11}", style="bold")
    line.append(clean(item.text) + "  ")
    line.append(f"from message #{item.message_id}", style="dim")
    return line


def lost_count(count: int) -> str:
    """`3 details lost`; the empty report in words."""
    if not count:
        return NOTHING_LOST
    return f"{count} detail{'s' if count != 1 else ''} lost:"


class LostList(OptionList):
    """The details the text lacks; Enter (select) on one adds it back."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("LostList")


class SummaryReview(Dialog[str | None]):
    """A summary's text and what it lost; dismisses with the text to keep (as shown, edited
    or not), or None to reject it.

    `report` says what a text still lacks (asked again as the text changes); Enter on an
    item adds its sentence back (`add_back`).
    """

    DEFAULT_CSS = """
    SummaryReview {
        & > Vertical {
            width: 95%;
            max-width: 140;
            height: 90%;
            padding: 0 1;
        }
        #review-headline {
            height: auto;
            margin-top: 1;
        }
        #review-text {
            height: 1fr;
            min-height: 4;
            margin-top: 1;
        }
        #review-count {
            height: auto;
            margin-top: 1;
            text-style: bold;
        }
        #review-lost {
            height: auto;
            max-height: 35%;
        }
        #review-lost.-empty {
            display: none;
        }
        #review-buttons {
            margin-top: 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("SummaryReview")

    def __init__(
        self,
        text: str,
        report: Report,
        *,
        title: str,
        headline: str,
        strategy: SummaryStrategy,
        accept_label: str = "Keep",
        discard_question: str = "Throw away your edits and reject this summary?",
    ) -> None:
        super().__init__()
        self._original = text
        self._report = report
        self._title = title
        self._headline = headline
        self._strategy = strategy
        self._accept_label = accept_label
        self._discard_question = discard_question
        self._lost: tuple[LostDetail, ...] = tuple(report(text))

    @property
    def lost(self) -> tuple[LostDetail, ...]:
        """What the text as shown still lacks."""
        return self._lost

    @property
    def text(self) -> str:
        """The summary as shown, or as written when it is shown unedited (control
        characters are shown, not sent to the terminal, in the box)."""
        shown = self.query_one("#review-text", TextArea).text
        return self._original if shown == clean(self._original) else shown

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = self._title
            yield Static(self._headline, id="review-headline", markup=False)
            yield TextArea(clean(self._original), soft_wrap=True, id="review-text")
            yield Static(id="review-count", markup=False)
            yield LostList(id="review-lost")
            with Horizontal(id="review-buttons", classes="dialog--buttons"):
                yield Button("Reject", id="reject")
                yield Button(self._accept_label, id="accept", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._show_lost()
        listed = self.query_one("#review-lost", OptionList)
        (listed if self._lost else self.query_one("#review-text", TextArea)).focus()

    def _show_lost(self) -> None:
        listed = self.query_one("#review-lost", OptionList)
        highlighted = listed.highlighted
        listed.clear_options()
        listed.add_options(Option(lost_line(item)) for item in self._lost)
        listed.set_class(not self._lost, "-empty")
        if self._lost:
            listed.highlighted = min(highlighted or 0, len(self._lost) - 1)
        self.query_one("#review-count", Static).update(lost_count(len(self._lost)))
        self.refresh_bindings()

    @on(TextArea.Changed, "#review-text")
    def _text_changed(self) -> None:
        lost = tuple(self._report(self.text))
        if lost != self._lost:
            self._lost = lost
            self._show_lost()

    @on(OptionList.OptionSelected, "#review-lost")
    def _add_back(self) -> None:
        index = self.query_one("#review-lost", OptionList).highlighted
        if index is None or index >= len(self._lost):
            return
        editor = self.query_one("#review-text", TextArea)
        editor.load_text(clean(add_back(self.text, self._lost[index], self._strategy)))
        self._text_changed()  # at once: load_text's Changed comes later
        if not self._lost:
            editor.focus()

    @on(Button.Pressed, "#accept")
    def action_accept(self) -> None:
        if not self.text.strip():
            self.notify(
                "An empty summary cannot be kept; reject it instead.",
                severity="error",
                markup=False,
            )
            return
        self.dismiss(self.text)

    @on(Button.Pressed, "#reject")
    def action_reject(self) -> None:
        if self.text.strip() == self._original.strip():
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(
            ConfirmScreen(self._discard_question, "Throw away", True),
            answered,
        )
