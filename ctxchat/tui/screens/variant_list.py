"""The variants of one reply: what changed, model, tokens and when; open one beside the
reply, or keep one as the reply that continues the conversation."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ctxchat.core.history import MessageStatus
from ctxchat.store import ReplyVariant
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.text import content, tokens
from ctxchat.tui.widgets.footer import KeyFooter

__all__ = ["VariantChoice", "VariantList", "variant_label"]


@dataclass(frozen=True, slots=True)
class VariantChoice:
    """The variant picked, and whether to keep it as the reply (else: open it)."""

    variant_id: int
    keep: bool = False


def variant_label(variant: ReplyVariant) -> Content:
    """One line per variant: number and what changed, then model, tokens, status and date."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(variant.created_at))
    facts = [variant.model or "model unknown", f"{tokens(variant.tokens)} tokens"]
    if variant.status is not MessageStatus.COMPLETE:
        facts.append(variant.status.value)
    facts.append(when)
    return Content.assemble(
        content(f"variant {variant.id}", "bold"),
        content(f"  {variant.change}\n"),
        content("  " + " · ".join(facts), "$foreground-muted"),
    )


class VariantOptions(OptionList):
    """The variants: Enter opens the highlighted one (the list's own key, so one typed
    right after an arrow key opens where the arrow moved to)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("VariantOptions")


class VariantList(Dialog[VariantChoice | None]):
    """A reply's variants, oldest first; dismisses with a `VariantChoice` or None."""

    DEFAULT_CSS = """
    VariantList {
        & > Vertical {
            width: 90;
            max-width: 95%;
            height: auto;
            max-height: 90%;
            padding: 1 2;
        }
        OptionList {
            height: auto;
            max-height: 24;
        }
        .variant-list--note {
            color: $foreground-muted;
            height: auto;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("VariantList")

    def __init__(self, reply_id: int, variants: Sequence[ReplyVariant]) -> None:
        super().__init__()
        self._reply_id = reply_id
        self._variants = list(variants)

    def compose(self) -> ComposeResult:
        with Vertical():
            count = len(self._variants)
            yield Static(
                content(f"Reply {self._reply_id}: {count} variant{'s' if count != 1 else ''}"),
                classes="dialog--title",
            )
            yield VariantOptions(
                *(Option(variant_label(v), id=str(v.id)) for v in self._variants),
                id="variant-options",
            )
            yield Static(
                content(
                    "Enter shows it beside the reply; ctrl+k keeps it as the reply (the reply "
                    "becomes a variant, nothing is lost)."
                ),
                classes="variant-list--note",
            )
        yield KeyFooter()

    def _highlighted(self) -> int | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        option_id = options.get_option_at_index(options.highlighted).id
        return None if option_id is None else int(option_id)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(VariantChoice(int(event.option.id)))

    def action_keep(self) -> None:
        chosen = self._highlighted()
        if chosen is None:
            return
        variant = next(v for v in self._variants if v.id == chosen)
        if variant.status in (MessageStatus.FAILED, MessageStatus.STREAMING):
            self.notify(
                f"A {variant.status.value} variant cannot continue the conversation.",
                markup=False,
            )
            return
        self.dismiss(VariantChoice(chosen, keep=True))

    def action_close(self) -> None:
        self.dismiss(None)
