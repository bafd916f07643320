"""A reply and its variant side by side, the variant streaming, with the request diff below."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from ctxchat.chat.ask_again import (
    PreparedVariant,
    VariantFailed,
    VariantFinished,
    VariantStarted,
    ask_again,
)
from ctxchat.chat.session import ChatSession
from ctxchat.chat.turn import ReplyDelta
from ctxchat.core.history import MessageStatus
from ctxchat.model.errors import ProviderError
from ctxchat.store import ReplyVariant, StoredMessage
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.screens.inspector import WrappedLines, diff_content
from ctxchat.tui.text import content, tokens
from ctxchat.tui.widgets.footer import KeyFooter

__all__ = ["VariantComparison", "VariantKept"]


@dataclass(frozen=True, slots=True)
class VariantKept:
    """The variant became the reply (its answer now continues the conversation)."""

    reply: StoredMessage


def answer_facts(answer: StoredMessage | ReplyVariant) -> str:
    """One line under an answer: its model, status, tokens and the server's usage."""
    parts = [answer.model or "model unknown", answer.status.value]
    if answer.estimated_prompt_tokens is not None:
        parts.append(f"request {tokens(answer.estimated_prompt_tokens)} tokens (estimate)")
    if answer.prompt_tokens is not None:
        parts.append(f"server counted {tokens(answer.prompt_tokens)}")
    if answer.completion_tokens is not None:
        parts.append(f"reply {tokens(answer.completion_tokens)}")
    if answer.error:
        parts.append(answer.error)
    return " · ".join(parts)


class VariantComparison(Dialog[VariantKept | None]):
    """The reply on the left, its variant on the right (streamed here), the request diff
    below; `k` keeps the variant as the reply, `escape` keeps the reply."""

    DEFAULT_CSS = """
    VariantComparison {
        & > Vertical {
            width: 96%;
            height: 92%;
            padding: 0 1;
        }
        #variant-answers {
            height: 2fr;
        }
        .variant--column {
            width: 1fr;
            padding: 0 1;
        }
        .variant--heading {
            text-style: bold;
        }
        .variant--facts {
            color: $foreground-muted;
        }
        .variant--text {
            height: 1fr;
        }
        #variant-diff-heading {
            margin-top: 1;
            text-style: bold;
        }
        #variant-diff {
            height: 1fr;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "close",
            "Keep the reply",
            id="variant.close",
            tooltip="Close; the reply stays, the variant is kept as a variant",
        ),
        Binding(
            "k",
            "keep",
            "Keep the variant",
            id="variant.keep",
            tooltip="Make the variant the reply that continues the conversation",
        ),
        Binding(
            "f2",
            "inspect",
            "Inspect",
            id="variant.inspect",
            tooltip="The variant's whole request, with the diff against the reply's",
        ),
    ]

    def __init__(
        self, session: ChatSession, prepared: PreparedVariant, *, send: bool = True
    ) -> None:
        """`send` False shows the comparison without sending (the variant is then given
        with `show_variant`)."""
        super().__init__()
        self._session = session
        self._prepared = prepared
        self._send = send
        self._text: list[str] = []
        self.variant: ReplyVariant | None = None

    def compose(self) -> ComposeResult:
        prepared = self._prepared
        reply = prepared.reply
        with Vertical():
            yield Static(
                content(f"Reply {reply.id} asked again: {prepared.change.describe()}"),
                classes="dialog--title",
            )
            with Horizontal(id="variant-answers"):
                with Vertical(classes="variant--column"):
                    yield Static(content(f"Reply {reply.id} (as sent)"), classes="variant--heading")
                    yield Static(content(answer_facts(reply)), classes="variant--facts")
                    with VerticalScroll(classes="variant--text"):
                        yield Static(content(reply.content), id="variant-original")
                with Vertical(classes="variant--column"):
                    yield Static(
                        content("Variant (streaming…)"),
                        id="variant-heading",
                        classes="variant--heading",
                    )
                    yield Static(
                        content(
                            f"{prepared.request.body.get('model')} · request "
                            f"{tokens(prepared.plan.tokens)} tokens (estimate)"
                        ),
                        id="variant-facts",
                        classes="variant--facts",
                    )
                    with VerticalScroll(classes="variant--text"):
                        yield Static("", id="variant-text")
            diff = prepared.diff()
            added = sum(1 for line in diff[2:] if line.startswith("+"))
            removed = sum(1 for line in diff[2:] if line.startswith("-"))
            yield Static(
                content(
                    f"Request diff: −{removed} +{added} lines · tokens "
                    f"{tokens(prepared.original.tokens)} → {tokens(prepared.plan.tokens)}"
                ),
                id="variant-diff-heading",
            )
            yield WrappedLines(
                diff_content(diff) or [content("The requests are identical.")], id="variant-diff"
            )
        yield KeyFooter()

    def on_mount(self) -> None:
        if self._send:
            self._stream()

    @work(exclusive=True, group="variant", exit_on_error=False)
    async def _stream(self) -> None:
        try:
            async for event in ask_again(self._session, self._prepared):
                if isinstance(event, ReplyDelta) and event.text:
                    self._text.append(event.text)
                    self.query_one("#variant-text", Static).update(content("".join(self._text)))
                elif isinstance(event, VariantFinished | VariantFailed):
                    self.show_variant(event.variant)
                elif isinstance(event, VariantStarted):
                    continue
        except ProviderError as error:  # raised before the stream began (no server)
            self.notify(str(error), severity="error", markup=False)

    def show_variant(self, variant: ReplyVariant) -> None:
        """Show a finished variant (its whole text, facts and status)."""
        self.variant = variant
        status = "" if variant.status is MessageStatus.COMPLETE else f" ({variant.status.value})"
        self.query_one("#variant-heading", Static).update(content(f"Variant {variant.id}{status}"))
        self.query_one("#variant-facts", Static).update(content(answer_facts(variant)))
        self.query_one("#variant-text", Static).update(content(variant.content))

    def action_keep(self) -> None:
        variant = self.variant
        if variant is None:
            self.notify("The variant is still being written.", markup=False)
            return
        if variant.status is MessageStatus.FAILED:
            self.notify("A failed variant cannot continue the conversation.", markup=False)
            return
        self.dismiss(VariantKept(self._session.keep_variant(variant.id)))

    def action_close(self) -> None:
        if self.variant is None:
            self.workers.cancel_group(self, "variant")  # stopped: kept as interrupted
        self.dismiss(None)

    def action_inspect(self) -> None:
        from ctxchat.tui.screens.inspector import RequestInspector

        prepared = self._prepared
        self.app.push_screen(
            RequestInspector(
                prepared.request.body,
                prepared.plan,
                previous=dict(prepared.diff_base()),
                title=f"Variant of reply {prepared.reply.id}",
                tab="diff",
            )
        )
