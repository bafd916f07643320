"""One turn of the conversation: who said it, what they said, and how the reply ended."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from ctxchat.core.history import MessageStatus
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.outside import OutsideRun
from ctxchat.tui.text import clean, model_name, plain
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown, stop_stream

ROLE_NAMES = {"user": "You", "assistant": "Assistant", "system": "System"}
# The marker line is where a failure is told (not the status line, not a notification):
# it says how to retry and where the server's own words are.
RETRY_HINT = "retry: ctrl+r · details: click or ctrl+d"
WRITES_PER_SECOND = 10
DRAWING_SHARE = 0.5
"""The most of a streaming reply's time that drawing it may take: the rest is left for
reading the reply and for the keyboard."""
DRAWING_WAIT_LIMIT = 1.0
"""Seconds a write waits for the one before it to be drawn before it goes anyway."""
STALL_AFTER = 3
"""Seconds without a word from the server after which a streaming reply shows how long
it has been waiting."""
CUT_SENTENCE = "✂ Cut at the output limit: the reply is incomplete (raise {setting})."
EXCLUDED_WORDS = "left out: excluded by you"


def status_sentence(view: MessageView) -> str:
    """The marker line under an interrupted or failed reply ("" for any other status)."""
    if view.status == MessageStatus.INTERRUPTED:
        reason = view.error or "The reply stopped before it was complete."
        return f"⚠ Interrupted: {reason}  ·  {RETRY_HINT}"
    if view.status == MessageStatus.FAILED:
        reason = view.error or "The model server did not answer."
        return f"✖ Failed: {reason}  ·  {RETRY_HINT}"
    if view.cut and view.status == MessageStatus.COMPLETE:
        return CUT_SENTENCE.format(setting=view.limit or "output_reserve")
    return ""


def reasoning_title(view: MessageView) -> str:
    """ "Reasoning", with its token count when known, or "Reasoning…" while it arrives."""
    if view.status == MessageStatus.STREAMING:
        return "Reasoning…"
    if view.reasoning_tokens:
        return f"Reasoning · {view.reasoning_tokens:,} tokens"
    return "Reasoning"


def header_text(view: MessageView, waiting: int = 0) -> Text:
    """Role, then model and token count when known, as plain styled text (never markup);
    `waiting` is how many seconds a streaming reply has gone without a word."""
    header = Text()
    header.append(ROLE_NAMES.get(view.role, view.role), style="bold")
    if view.excluded:
        # Said in words, not only dimmed: the turn is in no request until included again.
        header.append(f"  {EXCLUDED_WORDS}", style="bold italic")
    details = []
    if view.model and view.role == "assistant":
        details.append(clean(model_name(view.model)))
    if view.tokens and (view.content or view.reasoning):
        # A failed reply with no text counts only the message overhead: nothing to show.
        details.append(f"{view.tokens:,} tokens")
        if view.cost:  # what the reply cost, beside its count
            details.append(view.cost)
    if view.reasoning_tokens:
        details.append(f"reasoning {view.reasoning_tokens:,} tokens, not sent back")
    if view.status == MessageStatus.STREAMING:
        details.append("thinking…" if view.reasoning and not view.content else "writing…")
        if waiting >= STALL_AFTER:
            details.append(f"waiting {waiting} s for the server (Esc stops)")
    if details:
        header.append("  " + " · ".join(details), style="dim")
    return header


class MessageItem(Vertical):
    """A user or assistant turn; assistant text is Markdown, streamed in while it arrives."""

    DEFAULT_CSS = """
    MessageItem {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: outer $primary 60%;

        &.-user {
            border-left: outer $accent 70%;
            background: $boost;
        }
        /* What Ctrl+C, Ctrl+K and F2 act on must stand out in every theme, also in 256
           colours: a strong tint (12% vanished into the background) and a thick bar. */
        &.-selected {
            border-left: thick $accent;
            background: $primary 35%;
        }
        & > .message--header {
            height: 1;
        }
        & > .message--body {
            height: auto;
        }
        /* No `:last-child` rule on the Markdown blocks: it makes Textual restyle every
           block each time a streamed block is added, which grows with the reply's square. */
        & > Markdown.message--body {
            padding: 0;
            margin: 0;
        }
        & > .message--status {
            height: auto;
            display: none;
        }
        & > .message--status.-interrupted {
            display: block;
            color: $warning;
        }
        & > .message--status.-failed {
            display: block;
            color: $error;
        }
        & > .message--status.-complete.-cut {
            display: block;
            color: $warning;
        }
        /* Outside the next request: a quiet gutter, and under the newest such turn one
           line saying what became of the turns above. */
        &.-outside {
            border-left: outer $foreground 15%;
        }
        &.-outside > .message--header {
            color: $text-muted;
        }
        & > .message--outside {
            color: $text-muted;
            text-style: italic;
        }
        & > .message--outside.-empty {
            display: none;
        }
        &.-outside.-selected {
            border-left: thick $accent;
        }
        /* Excluded by the user: the whole turn dimmed, its header saying so in words. */
        &.-excluded > .message--body {
            color: $text-muted;
        }
        & > Collapsible {
            padding: 0;
            margin: 0;
            border-top: none;
            background: transparent;
        }
        & > Collapsible Static {
            color: $text-muted;
        }
    }
    """

    @dataclass
    class LinkClicked(Message):
        """A Markdown link was clicked; the app asks the user before opening `href`."""

        message_id: int
        href: str

    def __init__(self, view: MessageView) -> None:
        super().__init__(id=f"message-{view.id}")
        self._view = view
        self._shown_reasoning = ""  # the reasoning the collapsible shows
        self._live: LiveTurn | None = None  # the reply streaming in: what arrived is there
        self._answer_shown = False  # whether any of the streamed answer is drawn yet
        self._reasoning_text: Static | None = None  # the reasoning block's text, once shown
        self._stream: MarkdownStream | None = None
        self._last_write = 0.0
        self._written_to = 0  # the body's length once every write so far is appended
        self._drawn_to = 0  # the body's length last seen on screen
        self._draw_time = 0.0  # seconds from the last write until it was on screen
        self._flush_timer: Timer | None = None
        self._outside: OutsideRun | None = None  # the run outside the request it is in
        self._last_arrival = 0.0  # when the server last sent something for this reply
        self._stall_timer: Timer | None = None
        self._sync_classes()

    @property
    def view(self) -> MessageView:
        """What this item shows now (content included, as far as it has streamed)."""
        live = self._live
        if live is not None:
            # Read from the turn when asked, not per delta: that would copy the reply on each.
            content, reasoning = live.text, live.reasoning
            if (content, reasoning) != (self._view.content, self._view.reasoning):
                self._view = replace(self._view, content=content, reasoning=reasoning)
        return self._view

    @property
    def message_id(self) -> int:
        return self._view.id

    @property
    def is_streaming(self) -> bool:
        """Whether this turn's reply still streams (asked of its LiveTurn)."""
        return self._live is not None and self._live.streaming

    def _undrawn(self) -> bool:
        """Whether the turn holds text or reasoning the screen does not show yet."""
        live = self._live
        return live is not None and (live.has_undrawn() or self._reasoning_pending())

    def _reasoning_pending(self) -> bool:
        """Reasoning arrived that the screen does not show yet."""
        live = self._live
        return live is not None and live.reasoning != self._shown_reasoning

    def compose(self) -> ComposeResult:
        view = self._view
        yield Static(header_text(view), classes="message--header")
        self._shown_reasoning = view.reasoning
        if view.reasoning:
            yield self._reasoning_block(view)
        if view.role == "assistant":
            yield ReplyMarkdown(clean(view.content), open_links=False, classes="message--body")
        else:
            yield Static(plain(view.content), classes="message--body")
        cut = " -cut" if view.cut else ""
        yield Static(
            plain(status_sentence(view)), classes=f"message--status -{view.status.value}{cut}"
        )
        divider = self._divider()
        yield Static(plain(divider), classes="message--outside" + ("" if divider else " -empty"))

    def mark_outside(self, run: OutsideRun | None) -> None:
        """Mark the turn as left out of the next request (`run`), or as sent (None)."""
        if run == self._outside:
            return
        self._outside = run
        self.set_class(run is not None, "-outside")
        if self.is_mounted:
            divider = self._divider()
            line = self.query_one(".message--outside", Static)
            line.update(plain(divider))
            line.set_class(not divider, "-empty")

    def _divider(self) -> str:
        run = self._outside
        if run is None or run.last != self._view.id or not run.divider():
            return ""
        return f"┄┄ {run.divider()}"

    def update_view(self, view: MessageView) -> None:
        """Show a new state of this message.

        While the reply streams only the header follows (model, tokens): the text and the
        status belong to `append` and `finish`.
        """
        same_text = (view.content, view.status, view.error) == (
            self.view.content,
            self._view.status,
            self._view.error,
        )
        if self._stream is not None or same_text:
            # Only the header or the reasoning changed: rebuilding a long reply's Markdown
            # for that would cost as much as rendering it again.
            self._view = replace(
                self._view,
                model=view.model,
                tokens=view.tokens,
                reasoning=view.reasoning,
                reasoning_tokens=view.reasoning_tokens,
                cut=view.cut,
                excluded=view.excluded,
                cost=view.cost,
                limit=view.limit,
            )
            self._sync_classes()
            if self._stream is None:
                self._set_status(self._view.status)  # the cut marker, if it is one
            header = self.query_one(".message--header", Static)
            header.update(header_text(self._view))
            if self._stream is None and self._shown_reasoning != self._view.reasoning:
                for shown in self.query_children(Collapsible):
                    shown.remove()
                self._reasoning_text = None
                self._shown_reasoning = self._view.reasoning
                if self._view.reasoning:
                    self.mount(self._reasoning_block(self._view), after=header)
            else:
                self._retitle_reasoning()
            return
        self._view = view
        self._sync_classes()
        self.refresh(recompose=True)

    def start_stream(self, live: LiveTurn) -> None:
        """Stream the reply `live` receives into the Markdown body (which shows what of it
        is drawn already)."""
        self._live = live
        if self._stream is None:
            body = self.query_one(".message--body", Markdown)
            self._stream = Markdown.get_stream(body)
            self._written_to = self._drawn_to = len(body.source)
            self._draw_time = 0.0
            self._last_arrival = time.monotonic()
            self._stall_timer = self.set_interval(1, self._refresh_header)
            self._set_status(MessageStatus.STREAMING)

    async def resume(self, live: LiveTurn) -> None:
        """Stream on into a turn drawn from the store while its reply was still arriving
        (its conversation was left and opened again): first show all that came so far."""
        self._live = live
        content = live.text
        live.drawn = len(content)
        await self.query_one(".message--body", ReplyMarkdown).update(clean(content))
        self._answer_shown = bool(content)
        await self._show_reasoning()
        for shown in self.query_children(Collapsible):
            shown.collapsed = bool(content)
        self.start_stream(live)
        self.refresh_bindings()  # a streaming turn takes some keys away (edit, regenerate)

    async def arrived(self) -> None:
        """More of the reply (or of its reasoning) arrived in its turn: draw it soon.

        Reasoning shows in an open "Reasoning…" block while the model thinks, which folds
        away when the answer itself begins.
        """
        self._arrived()
        if self.is_attached and self._stream is not None:
            await self._schedule_write()

    async def _schedule_write(self) -> None:
        # A fast server sends hundreds of deltas a second, and each write makes the Markdown
        # parse and lay out again, at a cost that grows with the reply. So a write waits for
        # the last one to be on screen, and comes at most WRITES_PER_SECOND times a second,
        # and no sooner than keeps drawing within DRAWING_SHARE of the time.
        if self._flush_timer is not None:
            return  # what arrives meanwhile goes with the write already planned
        since = time.monotonic() - self._last_write
        if self._drawn_to < self._written_to:  # the last write is not on screen yet
            wait = DRAWING_WAIT_LIMIT - since  # planned again once it is drawn (`_drawn`)
        else:
            wait = max(1 / WRITES_PER_SECOND, self._draw_time / DRAWING_SHARE) - since
        if wait <= 0:
            await self._write_pending()
        else:
            self._flush_timer = self.set_timer(wait, self._write_pending)

    @on(ReplyMarkdown.Appended)
    async def _drawn(self, event: ReplyMarkdown.Appended) -> None:
        """The last write is on screen: the next one may be planned."""
        event.stop()
        if self._drawn_to >= self._written_to or event.size < self._written_to:
            return  # an earlier write (or the last stream's) is drawn, not the last one
        self._draw_time = time.monotonic() - self._last_write
        self._drawn_to = event.size
        if self._flush_timer is not None:  # the wait for this draw, which is over
            self._flush_timer.stop()
            self._flush_timer = None
        if self._stream is not None and self._undrawn():
            await self._schedule_write()

    async def _write_pending(self) -> None:
        self._flush_timer = None
        live = self._live
        if self._stream is None or live is None:
            return
        self._last_write = time.monotonic()
        if self._reasoning_pending():
            await self._show_reasoning()
        text = live.undrawn()
        if not text:
            return
        if not self._answer_shown:
            self._fold_reasoning()
            self._refresh_header()
        # A control sequence split across two writes is only partly removed here; the
        # final render in `finish` cleans the whole text.
        text = clean(text)
        self._written_to += len(text)  # an empty write appends nothing: none to wait for
        await self._stream.write(text)

    async def _show_reasoning(self) -> None:
        """Show the reasoning received so far (while streaming, in an open block)."""
        view = self.view
        if view.reasoning == self._shown_reasoning:
            return
        self._shown_reasoning = view.reasoning
        if self._reasoning_text is not None:
            # Held from the start, not looked up: the block may still be composing.
            self._reasoning_text.update(plain(view.reasoning))
        else:
            block = self._reasoning_block(view, collapsed=bool(view.content))
            await self.mount(block, after=self.query_one(".message--header"))
            self._refresh_header()

    def _reasoning_block(self, view: MessageView, *, collapsed: bool = True) -> Collapsible:
        """A block showing `view`'s reasoning as plain text; its text widget is kept."""
        self._reasoning_text = Static(plain(view.reasoning), classes="message--reasoning")
        return Collapsible(self._reasoning_text, title=reasoning_title(view), collapsed=collapsed)

    def _fold_reasoning(self) -> None:
        """The answer begins: the reasoning makes room for it (once; reopening is kept)."""
        self._answer_shown = True
        for shown in self.query_children(Collapsible):
            shown.collapsed = True

    def _retitle_reasoning(self) -> None:
        for shown in self.query_children(Collapsible):
            shown.title = reasoning_title(self._view)

    def _arrived(self) -> None:
        if self._waiting() >= STALL_AFTER:
            self._last_arrival = time.monotonic()
            self._refresh_header()  # no longer waiting
        else:
            self._last_arrival = time.monotonic()

    def _waiting(self) -> int:
        """Whole seconds since the server last sent something (0 unless streaming)."""
        if self._stream is None:
            return 0
        return int(time.monotonic() - self._last_arrival)

    def _refresh_header(self) -> None:
        self.query_one(".message--header", Static).update(header_text(self.view, self._waiting()))

    async def finish(
        self,
        full_text: str,
        status: MessageStatus = MessageStatus.COMPLETE,
        *,
        error: str = "",
        tokens: int | None = None,
    ) -> None:
        """End the stream; the reply shows `full_text` (see `ReplyMarkdown.finish`)."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        if self._reasoning_pending() and self.is_attached:
            await self._show_reasoning()
        _ = self.view  # takes in all the turn received
        live, self._live = self._live, None  # `full_text` is the whole reply
        rest = clean(live.undrawn()) if live is not None else ""
        if full_text and not self._answer_shown:
            self._fold_reasoning()  # the whole answer came within the last write interval
        if self._stall_timer is not None:
            self._stall_timer.stop()
            self._stall_timer = None
        if self._stream is not None:
            stream, self._stream = self._stream, None
            if rest and self.is_attached:
                await stream.write(rest)  # what arrived since the last write
            await stop_stream(stream)
        if not self.is_attached:
            self._view = replace(self._view, content=full_text, status=status, error=error)
            return
        self._view = replace(
            self._view,
            content=full_text,
            status=status,
            error=error,
            tokens=self._view.tokens if tokens is None else tokens,
        )
        if self._view.role == "assistant":
            await self.query_one(".message--body", ReplyMarkdown).finish(clean(full_text))
        else:
            self.query_one(".message--body", Static).update(plain(full_text))
        self._set_status(status)

    def selected_text(self) -> str | None:
        """The text the user selected inside this message with the mouse, if any."""
        parts: list[str] = []
        for widget, selection in self.screen.selections.items():
            if widget is self or self in widget.ancestors:
                extracted = widget.get_selection(selection)
                if extracted is not None:
                    parts.append(extracted[0])
        text = "".join(parts).strip()
        return text or None

    def _set_status(self, status: MessageStatus) -> None:
        self._view = replace(self._view, status=status)
        self._sync_classes()
        self._refresh_header()
        self._retitle_reasoning()
        self.query_one(".message--status", Static).update(plain(status_sentence(self._view)))

    @property
    def status(self) -> MessageStatus:
        """How the turn stands: complete, streaming, interrupted or failed."""
        return self._view.status

    def _sync_classes(self) -> None:
        self.set_class(self._view.role == "user", "-user")
        self.set_class(self._view.excluded, "-excluded")
        # Status classes go on the marker line, not the item: changing a class on the item
        # restyles every Markdown block inside it.
        if not self.is_mounted:
            return
        marker = self.query_one(".message--status", Static)
        for status in MessageStatus:
            marker.set_class(self._view.status == status, f"-{status.value}")
        marker.set_class(self._view.cut, "-cut")

    @on(Markdown.LinkClicked)
    def _ask_before_opening(self, event: Markdown.LinkClicked) -> None:
        # Markdown is built with open_links=False; the app confirms before anything opens.
        event.stop()
        self.post_message(self.LinkClicked(self._view.id, event.href))
