"""A reply and its variant side by side, each drawn as Markdown (the variant streaming, or
one stored before), with the request diff below."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ctxchat.chat.ask_again import (
    Comparison,
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
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.dialog import Dialog
from ctxchat.tui.screens.inspector import WrappedLines, diff_content
from ctxchat.tui.text import clean, content, tokens
from ctxchat.tui.widgets.footer import KeyFooter
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

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
    """The reply on the left, its variant on the right (streamed here, or stored before),
    both as Markdown, the request diff below; `ctrl+k` keeps the variant as the reply,
    `escape` keeps the reply."""

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
        .variant--text > ReplyMarkdown {
            margin: 0;
            padding: 0;
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

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("VariantComparison")

    def __init__(
        self,
        session: ChatSession,
        prepared: PreparedVariant | None = None,
        *,
        stored: tuple[Comparison, ReplyVariant] | None = None,
    ) -> None:
        """Send `prepared` and stream its answer, or show a `stored` variant (with what it
        is compared to)."""
        super().__init__()
        self._session = session
        self._prepared = prepared
        if prepared is not None:
            self._compared, self._stored = prepared.comparison(), None
        else:
            assert stored is not None, "a variant to send, or one stored"
            self._compared, self._stored = stored
        self.variant: ReplyVariant | None = None

    def compose(self) -> ComposeResult:
        compared = self._compared
        reply = compared.reply
        stored = self._stored
        with Vertical():
            if stored is None:
                title = f"Reply {reply.id} asked again: {compared.change}"
            else:
                title = f"Reply {reply.id} and its variant {stored.id}: {compared.change}"
            yield Static(content(title), classes="dialog--title")
            with Horizontal(id="variant-answers"):
                with Vertical(classes="variant--column"):
                    yield Static(content(f"Reply {reply.id} (as sent)"), classes="variant--heading")
                    yield Static(content(answer_facts(reply)), classes="variant--facts")
                    with VerticalScroll(classes="variant--text"):
                        yield ReplyMarkdown(
                            clean(reply.content), open_links=False, id="variant-original"
                        )
                with Vertical(classes="variant--column"):
                    yield Static(
                        content("Variant (streaming…)"),
                        id="variant-heading",
                        classes="variant--heading",
                    )
                    plan = compared.plan
                    yield Static(
                        content(
                            f"{compared.body.get('model')} · request "
                            f"{tokens(plan.tokens if plan else 0)} tokens (estimate)"
                        ),
                        id="variant-facts",
                        classes="variant--facts",
                    )
                    with VerticalScroll(classes="variant--text"):
                        yield ReplyMarkdown(
                            "" if stored is None else clean(stored.content),
                            open_links=False,
                            id="variant-text",
                        )
            yield Static(content(self._diff_heading()), id="variant-diff-heading")
            yield WrappedLines(self._diff_lines(), id="variant-diff")
        yield KeyFooter()

    def _diff_heading(self) -> str:
        compared = self._compared
        diff = compared.diff()
        added = sum(1 for line in diff[2:] if line.startswith("+"))
        removed = sum(1 for line in diff[2:] if line.startswith("-"))
        before = tokens(compared.original.tokens) if compared.original else "?"
        after = tokens(compared.plan.tokens) if compared.plan else "?"
        return f"Request diff: −{removed} +{added} lines · tokens {before} → {after}"

    def _diff_lines(self) -> list[Content]:
        compared = self._compared
        if not (compared.body and compared.base):
            return [content("No request was stored for one of them: nothing to compare.")]
        return diff_content(compared.diff()) or [content("The requests are identical.")]

    def on_mount(self) -> None:
        if self._stored is not None:
            self.show_variant(self._stored, redraw=False)
        elif self._prepared is not None:
            self._stream(self._prepared)

    @work(exclusive=True, group="variant", exit_on_error=False)
    async def _stream(self, prepared: PreparedVariant) -> None:
        text = self.query_one("#variant-text", ReplyMarkdown)
        try:
            async for event in ask_again(self._session, prepared):
                if isinstance(event, ReplyDelta) and event.text:
                    await text.append(clean(event.text))
                elif isinstance(event, VariantFinished | VariantFailed):
                    self.show_variant(event.variant)
                elif isinstance(event, VariantStarted):
                    continue
        except ProviderError as error:  # raised before the stream began (no server)
            self.notify(str(error), severity="error", markup=False)

    def show_variant(self, variant: ReplyVariant, *, redraw: bool = True) -> None:
        """Show a finished variant (its whole text, facts and status)."""
        self.variant = variant
        status = "" if variant.status is MessageStatus.COMPLETE else f" ({variant.status.value})"
        self.query_one("#variant-heading", Static).update(content(f"Variant {variant.id}{status}"))
        self.query_one("#variant-facts", Static).update(content(answer_facts(variant)))
        if redraw:
            self.run_worker(
                self.query_one("#variant-text", ReplyMarkdown).finish(clean(variant.content)),
                group="variant-settle",
            )

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

        compared = self._compared
        if compared.plan is None or not compared.body:
            self.notify("No request was stored for this variant.", markup=False)
            return
        title = f"Variant of reply {compared.reply.id}"
        url = (compared.plan.request or {}).get("url")
        if isinstance(url, str) and url:
            title += f" · POST {url}"
        self.app.push_screen(
            RequestInspector(
                compared.body,
                compared.plan,
                previous=dict(compared.base) if compared.base else None,
                title=title,
                tab="diff",
            )
        )
