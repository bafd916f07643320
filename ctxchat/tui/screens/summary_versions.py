"""The summary's versions: read any of them, roll back, edit, rebuild, or summarize now."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ctxchat.chat.summary_notice import loss_flag
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.job_words import InProgress
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import clean, plain, tokens
from ctxchat.tui.views import SummaryVersionView
from ctxchat.tui.widgets.footer import KeyFooter

SummaryActionKind = Literal["activate", "edit", "rebuild", "summarize", "cancel", "review"]


@dataclass(frozen=True, slots=True)
class SummaryAction:
    """What the user asked for; the app does it.

    "activate" rolls back to `version_id`; "edit" stores `text` as a new, edited version of
    `version_id`; "rebuild" summarizes the originals again; "summarize" folds now (the app
    shows `SummarizePreview` first); "cancel" stops the summary this app is making;
    "review" opens what `version_id` lost for review (`SummaryReview`).
    `version_id` is None only for "summarize" and "cancel".
    """

    action: SummaryActionKind
    version_id: int | None = None
    text: str | None = None


def version_label(view: SummaryVersionView) -> Text:
    """One line in the version list: number, marks, and the messages it covers."""
    label = Text()
    label.append("● " if view.active else "  ", style="green" if view.active else "")
    label.append(f"v{view.version}", style="bold")
    if view.active:
        label.append(" active", style="green")
    if view.edited:
        label.append(" edited", style="yellow")
    if view.waiting:
        label.append(" waits for review", style="bold yellow")
    if view.flagged:
        label.append(f" ⚑{view.flagged}", style="bold red")
    label.append(f"\n  #{view.first_message_id}–#{view.last_message_id}", style="dim")
    return label


def version_details(view: SummaryVersionView) -> Text:
    """The header over a version's text: range, strategy, model, size and date."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(view.created_at))
    parts = [
        f"messages #{view.first_message_id}–#{view.last_message_id}",
        view.strategy.value,
        clean(view.model) if view.model else "edited by hand" if view.edited else "",
        f"{tokens(view.tokens)} tokens",
        when,
    ]
    details = Text()
    details.append(f"v{view.version}", style="bold")
    details.append("  " + " · ".join(part for part in parts if part), style="dim")
    return details


class SummaryScreen(Dialog[SummaryAction | None]):
    """Summary versions, newest first; dismisses with a `SummaryAction` or None."""

    editing: var[bool] = var(False, bindings=True, init=False)
    """Whether the selected version's text is being edited (the list waits)."""
    in_progress: var[InProgress | None] = var(None, bindings=True, init=False)
    """The summary being made now, if one is: it can be cancelled, not begun again."""

    DEFAULT_CSS = """
    SummaryScreen {
        & > Vertical {
            width: 95%;
            max-width: 140;
            height: 90%;
        }
        Horizontal {
            height: 1fr;
        }
        #summary-list {
            width: 24;
            height: 1fr;
            border: none;
            border-right: vkey $foreground 20%;
        }
        #summary-pane {
            width: 1fr;
            height: 1fr;
            padding: 0 1;
        }
        #summary-details {
            height: auto;
            margin-bottom: 1;
        }
        #summary-flag {
            height: auto;
            margin-bottom: 1;
            color: $text-error;
            display: none;
        }
        #summary-flag.-flagged {
            display: block;
        }
        #summary-scroll {
            height: 1fr;
        }
        #summary-edit {
            height: 1fr;
            display: none;
        }
        &.-editing #summary-scroll {
            display: none;
        }
        &.-editing #summary-edit {
            display: block;
        }
        #summary-empty {
            padding: 1 2;
            color: $text-muted;
        }
        #summary-progress {
            height: auto;
            padding: 0 1;
            margin-bottom: 1;
            color: $text-accent;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("SummaryScreen")

    def __init__(
        self,
        versions: Sequence[SummaryVersionView],
        *,
        progress: Callable[[], InProgress | None] = lambda: None,
        review_key: str = "ctrl+l",
    ) -> None:
        """`progress` tells the summary being made now, if one is (asked each second while
        it runs); `review_key` is the key a flagged version's line names."""
        super().__init__()
        self._review_key = review_key
        self._versions = sorted(versions, key=lambda v: v.version, reverse=True)
        self._progress = progress
        self.set_reactive(SummaryScreen.in_progress, progress())
        self._ticks: Timer | None = None

    @property
    def selected(self) -> SummaryVersionView | None:
        if not self._versions:
            return None
        index = self.query_one(OptionList).highlighted
        return self._versions[index] if index is not None else None

    def watch_editing(self, editing: bool) -> None:
        self.set_class(editing, "-editing")
        option_list = self.query_one(OptionList)
        option_list.disabled = editing
        (self.query_one(TextArea) if editing else option_list).focus()

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = "Summary versions"
            if self.in_progress is not None:
                yield Static(self.in_progress.text, id="summary-progress", markup=False)
            if not self._versions and self.in_progress is not None:
                yield Static(
                    "No summary yet: the first one is being made (above).",
                    id="summary-empty",
                    markup=False,
                )
            elif not self._versions:
                yield Static(
                    "No summary yet: messages are folded into one when they leave working "
                    "memory. Press ctrl+s to summarize now.",
                    id="summary-empty",
                    markup=False,
                )
            else:
                yield from self._compose_versions()
        yield KeyFooter()

    def _compose_versions(self) -> ComposeResult:
        with Horizontal():
            yield OptionList(
                *(Option(version_label(v), id=str(v.id)) for v in self._versions),
                id="summary-list",
            )
            with Vertical(id="summary-pane"):
                yield Static(id="summary-details")
                yield Static(id="summary-flag", markup=False)
                with VerticalScroll(id="summary-scroll"):
                    yield Static(id="summary-text")
                yield TextArea(soft_wrap=True, id="summary-edit")

    def on_mount(self) -> None:
        if self.in_progress is not None:
            self._ticks = self.set_interval(1.0, self._tell_progress)
        if self._versions:
            option_list = self.query_one(OptionList)
            active = [i for i, v in enumerate(self._versions) if v.active]
            option_list.highlighted = active[0] if active else 0
            option_list.focus()

    @on(OptionList.OptionHighlighted)
    def _show_selected(self) -> None:
        view = self.selected
        if view is None:
            return
        self.query_one("#summary-details", Static).update(version_details(view))
        self.query_one("#summary-text", Static).update(plain(view.text))
        flag = self.query_one("#summary-flag", Static)
        shown = loss_flag(view.flagged, self._review_key) if view.flagged else ""
        if view.waiting:
            shown = f"Not in force: it waits for your review. {shown}".strip()
        flag.update(shown)
        flag.set_class(bool(view.flagged), "-flagged")
        self.refresh_bindings()

    def _tell_progress(self) -> None:
        """The summary being made, again: its step and seconds, or that it ended."""
        progress = self._progress()
        if progress is None:
            if self._ticks is not None:
                self._ticks.stop()
            text = "The summary being made has ended: open the versions again to see it."
        else:
            text = progress.text
        self.in_progress = progress
        self.query_one("#summary-progress", Static).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "save":
            return self.editing
        if action == "cancel_job":
            return self.in_progress is not None and self.in_progress.cancellable
        if action == "summarize" and self.in_progress is not None:
            return False  # one is being made: not a second
        if action in ("activate", "edit", "rebuild", "summarize", "review") and self.editing:
            return False
        view = self.selected
        if action == "activate":
            return True if view is not None and not view.active else None
        if action in ("edit", "rebuild"):
            return True if view is not None else None
        if action == "review":
            return view is not None and view.flagged > 0  # shown only where it applies
        return True

    def action_activate(self) -> None:
        view = self.selected
        if view is not None and not view.active:
            self.dismiss(SummaryAction("activate", view.id))

    def action_edit(self) -> None:
        view = self.selected
        if view is None:
            return
        self.query_one(TextArea).load_text(clean(view.text))
        self.editing = True

    def action_save(self) -> None:
        view = self.selected
        if view is None or not self.editing:
            return
        text = self.query_one(TextArea).text.strip()
        if not text:
            self.notify("A summary cannot be empty.", severity="error", markup=False)
            return
        if text == view.text.strip():
            self._stop_editing()
            return
        self.dismiss(SummaryAction("edit", view.id, text))

    def action_review(self) -> None:
        view = self.selected
        if view is not None and view.flagged:
            self.dismiss(SummaryAction("review", view.id))

    def action_rebuild(self) -> None:
        view = self.selected
        if view is not None:
            self.dismiss(SummaryAction("rebuild", view.id))

    def action_summarize(self) -> None:
        self.dismiss(SummaryAction("summarize"))

    def action_cancel_job(self) -> None:
        self.dismiss(SummaryAction("cancel"))

    def action_close(self) -> None:
        if self.editing:
            self._stop_editing()
            return
        self.dismiss(None)

    def _stop_editing(self) -> None:
        self.editing = False
