"""The request inspector: the exact JSON a request sends, its messages by layer, the diff,
and the prompt as the server's chat template renders it."""

from __future__ import annotations

import difflib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Static, TabbedContent, TabPane

from ctxchat.chat.rendered import NotRendered, RenderedRequest, rendered_parts
from ctxchat.core.body_diff import body_changes
from ctxchat.core.figure_words import figure_words
from ctxchat.core.history import preview
from ctxchat.core.plan import ContextPlan
from ctxchat.core.prefix import shared_prefix
from ctxchat.core.tokens import REPLY_PRIMER
from ctxchat.model.request import Sampling
from ctxchat.tui.actions import bindings_for
from ctxchat.tui.screens.hands_typing_back import HandsTypingBack
from ctxchat.tui.text import clean, tokens
from ctxchat.tui.themes import layer_variable
from ctxchat.tui.widgets.footer import KeyFooter

__all__ = [
    "RequestInspector",
    "WrappedLines",
    "change_lines",
    "diff_content",
    "diff_lines",
    "message_line_owners",
    "pretty_json",
    "rendered_lines",
]

TABS = ("json", "messages", "diff", "rendered")

Render = Callable[[Sequence[Mapping[str, str]]], Awaitable[RenderedRequest | NotRendered]]
"""Asks the server to render a request's messages in its chat template."""


def pretty_json(body: Mapping[str, Any]) -> str:
    """The request body as shown and copied: indented, keys in the order they are sent."""
    return json.dumps(body, indent=2, ensure_ascii=False)


def message_line_owners(text: str) -> list[int | None]:
    """For each line of `pretty_json` output, the index of the message it belongs to, if any."""
    owners: list[int | None] = []
    inside = False
    current: int | None = None
    count = 0
    for line in text.splitlines():
        if not inside:
            inside = line == '  "messages": ['
            owners.append(None)
            continue
        if line.startswith("  ]"):
            inside = False
            owners.append(None)
            continue
        if line == "    {":
            current = count
            count += 1
        owners.append(current)
        if line in ("    }", "    },"):
            current = None
    return owners


def diff_lines(previous: str, current: str) -> list[str]:
    """A unified diff of two pretty JSON texts (empty when they are the same)."""
    return list(
        difflib.unified_diff(
            previous.splitlines(),
            current.splitlines(),
            "previous request",
            "this request",
            lineterm="",
        )
    )


class WrappedLines(ScrollView, can_focus=True):
    """Many lines, wrapped once per width and drawn only where visible.

    A request of thousands of messages is hundreds of kilobytes of JSON; a Static would wrap
    all of it again on every layout. Each line may have a gutter, repeated on its wrapped rows.
    """

    DEFAULT_CSS = """
    WrappedLines {
        height: 1fr;
        padding: 0 1;
        overflow-x: hidden;
        scrollbar-gutter: stable;
    }
    """

    def __init__(
        self,
        lines: Sequence[Content],
        gutters: Sequence[Content] | None = None,
        *,
        wrap: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._lines = list(lines)
        self._gutters = list(gutters) if gutters is not None else [Content()] * len(self._lines)
        self._wrap = wrap
        self._rows: list[Content] = []
        self._width = 0
        self._strips: dict[int, Strip] = {}

    @property
    def text(self) -> str:
        """The lines as plain text, without gutters."""
        return "\n".join(line.plain for line in self._lines)

    def show_lines(
        self, lines: Sequence[Content], gutters: Sequence[Content] | None = None
    ) -> None:
        """Show other lines (an answer that came after the view was drawn)."""
        self._lines = list(lines)
        self._gutters = list(gutters) if gutters is not None else [Content()] * len(self._lines)
        self._width = 0
        self._layout_rows(self.scrollable_content_region.width)
        self.scroll_home(animate=False)

    def on_resize(self, event: events.Resize) -> None:
        self._layout_rows(self.scrollable_content_region.width)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def _layout_rows(self, width: int) -> None:
        if width == self._width or width <= 0:
            return
        self._width = width
        self._strips.clear()
        rows: list[Content] = []
        for gutter, line in zip(self._gutters, self._lines, strict=True):
            room = max(1, width - gutter.cell_length)
            if not self._wrap:
                rows.append(gutter + line.truncate(room, ellipsis=True))
                continue
            rows.extend(gutter + piece for piece in (line.wrap(room) if line else [line]))
        self._rows = rows
        self.virtual_size = Size(width, len(rows))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if index >= len(self._rows):
            return Strip.blank(width, self.rich_style)
        strip = self._strips.get(index)
        if strip is None:
            strips = Visual.to_strips(
                self, self._rows[index], width, 1, self.visual_style, pad=True
            )
            strip = strips[0] if strips else Strip.blank(width, self.rich_style)
            self._strips[index] = strip
        return strip


class RequestInspector(HandsTypingBack[None]):
    """What a request sends, exactly: its JSON, each message's layer and tokens, and what changed
    since the previous request. Ctrl+C copies the JSON shown.

    Typing is not for the inspector: someone who goes on typing their message closes it,
    and the keys reach the composer (see `HandsTypingBack`).
    """

    TYPING_NOTE = "Typing does not reach your message from the inspector: Esc goes back."

    DEFAULT_CSS = """
    RequestInspector {
        align: center middle;
        & > #inspector-dialog {
            width: 1fr;
            height: 1fr;
            margin: 1 2;
            border: thick $primary;
            background: $surface;
        }
        & .inspector--title { padding: 0 1; text-style: bold; }
        & .inspector--summary { padding: 0 1; color: $foreground-muted; }
        & .inspector--placeholder { padding: 0 1; }
        /* The tabs take what is left of the dialog, so the view ends inside it and
           scrolls to its last line (auto heights let it run past the bottom). */
        & TabbedContent { height: 1fr; }
        & ContentSwitcher { height: 1fr; }
        & TabPane { padding: 0; height: 1fr; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("RequestInspector")

    def __init__(
        self,
        body: Mapping[str, Any],
        plan: ContextPlan,
        *,
        previous: ContextPlan | Mapping[str, Any] | None = None,
        title: str = "Next request",
        tab: str = "json",
        render: Render | None = None,
        placeholder: str | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`body` is the request body exactly as sent; `plan` the plan it was built from.

        `previous` is the request before it: its body, or its plan (its stored body; for a
        plan stored without one, this body with the previous plan's messages). `tab` is the tab shown first: json, messages, diff,
        rendered. `render` asks the server to render the request (None: no server to ask);
        it is asked when the rendered view is first shown. `placeholder` is the text that
        stands for a message not typed yet (the body's last message): said so above the tabs.
        """
        super().__init__(name=name, id=id, classes=classes)
        self.body = body
        self.plan = plan
        self.json_text = pretty_json(body)
        self._previous_plan = previous if isinstance(previous, ContextPlan) else None
        previous_body: Mapping[str, Any] | None
        if isinstance(previous, ContextPlan) and previous.request is not None:
            # The body it was sent as: its sampling, max_tokens and model may differ too.
            previous_body = previous.request["body"]
        elif isinstance(previous, ContextPlan):
            # Stored before requests were kept with their plans: only its messages are known.
            previous_body = {**body, "messages": previous.request_messages()}
        else:
            previous_body = previous
        self.previous_body = previous_body
        self.previous_json = None if previous_body is None else pretty_json(previous_body)
        self._title = title
        self._tab = tab if tab in TABS else "json"
        self._renderer = render
        self._placeholder = placeholder
        self.rendered: RenderedRequest | NotRendered | None = None
        """The server's rendering once it answered."""
        self._rendering_asked = False

    def compose(self) -> ComposeResult:
        with Vertical(id="inspector-dialog"):
            yield Static(self._title_content(), classes="inspector--title")
            yield Static(self._summary_content(), classes="inspector--summary")
            if self._placeholder is not None:
                yield Static(
                    Content.assemble(
                        (clean(self._placeholder), "bold $warning"),
                        " is a placeholder for the message you have not typed yet: the rest "
                        "is what would be sent with it",
                    ),
                    classes="inspector--placeholder",
                )
            with TabbedContent(initial=self._tab):
                with TabPane("JSON", id="json"):
                    yield WrappedLines(*self._json_lines(), id="json-view")
                with TabPane("Messages", id="messages"):
                    yield WrappedLines(self._messages_lines(), wrap=False, id="messages-view")
                with TabPane("Diff", id="diff"):
                    yield WrappedLines(self._diff_lines(), id="diff-view")
                with TabPane("Rendered", id="rendered"):
                    yield WrappedLines(self._waiting_lines(), id="rendered-view")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(f"#{self._tab}-view").focus()
        if self._tab == "rendered":
            self._ask_rendering()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id in TABS:
            self.query_one(f"#{event.pane.id}-view").focus()
        if event.pane.id == "rendered":
            self._ask_rendering()

    def action_show(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.query_one(f"#{tab}-view").focus()
        if tab == "rendered":
            self._ask_rendering()

    def _ask_rendering(self) -> None:
        """Ask the server once, the first time the view is shown; drawing never waits."""
        if self._rendering_asked:
            return
        self._rendering_asked = True
        if self._renderer is None:
            self._show_rendering(
                NotRendered("No server to ask here: only the server can render its template.")
            )
            return
        self._fetch_rendering(self._renderer)

    @work(exclusive=True, group="rendering", exit_on_error=False)
    async def _fetch_rendering(self, render: Render) -> None:
        messages = self.body.get("messages")
        messages = (
            [m for m in messages if isinstance(m, Mapping)] if isinstance(messages, list) else []
        )
        self._show_rendering(await render(messages))

    def _show_rendering(self, rendered: RenderedRequest | NotRendered) -> None:
        self.rendered = rendered
        messages = self.body.get("messages")
        sent = list(messages) if isinstance(messages, list) else []
        layers = [message.layer.value for message in self.plan.messages]
        self.query_one("#rendered-view", WrappedLines).show_lines(
            *rendered_lines(rendered, sent, layers)
        )

    def action_step(self, step: int) -> None:
        current = TABS.index(self.query_one(TabbedContent).active or "json")
        self.action_show(TABS[(current + step) % len(TABS)])

    def action_copy(self) -> None:
        from ctxchat.tui.clipboard import copy_and_say

        self.run_worker(copy_and_say(self, self.json_text), group="copy")

    def action_close(self) -> None:
        self.dismiss(None)

    def _title_content(self) -> Content:
        model = self.body.get("model")
        parts = [Content(clean(self._title))]
        if isinstance(model, str):
            parts.append(Content.styled(clean(model), "not bold $accent"))
        return Content(" · ").join(parts)

    def _summary_content(self) -> Content:
        plan = self.plan
        count = len(plan.messages)
        room = (
            plan.total_budget
            if plan.server_tokens is None
            else plan.context_window - plan.output_reserve
        )
        text = (
            f"{count} message{'s' if count != 1 else ''} · {figure_words(plan)} of "
            f"{tokens(room)} · mode {clean(plan.mode)}"
        )
        sampling = Sampling.of_body(self.body)
        words = sampling.words()
        if words and sampling.max_tokens is not None:
            # A preset sets the reply's limit beside its sampling: all of it is told.
            words.append(f"max_tokens {sampling.max_tokens:,}")
        for word in words:
            text += f" · {word}"
        if list(self.body.get("messages", [])) != plan.request_messages():
            return Content.assemble(
                text, " · ", ("the body's messages differ from the plan's", "bold $error")
            )
        return Content(text)

    def _json_lines(self) -> tuple[list[Content], list[Content]]:
        lines: list[Content] = []
        gutters: list[Content] = []
        layers = [message.layer.value for message in self.plan.messages]
        for line, owner in zip(
            self.json_text.splitlines(), message_line_owners(self.json_text), strict=True
        ):
            lines.append(Content(clean(line)))
            if owner is not None and owner < len(layers):
                gutters.append(Content.styled("▌ ", layer_variable(layers[owner])))
            else:
                gutters.append(Content("  "))
        return lines, gutters

    def _messages_lines(self) -> list[Content]:
        plan = self.plan
        if not plan.messages:
            warnings = " ".join(clean(w) for w in plan.warnings)
            return [Content.styled(f"Nothing would be sent. {warnings}".strip(), "$error")]
        refs = max(len(m.ref) for m in plan.messages)
        width = max(len(tokens(m.tokens)) for m in plan.messages)
        header = f"{'#':>3}  {'layer':<8} {'role':<9} {'tokens':>{max(width, 6)}}  {'ref':<{refs}}  content"
        lines = [Content.styled(header, "bold")]
        for index, message in enumerate(plan.messages, start=1):
            layer = message.layer.value
            lines.append(
                Content.assemble(
                    f"{index:>3}  ",
                    (f"{layer:<8}", layer_variable(layer)),
                    f" {clean(message.role):<9} {tokens(message.tokens):>{max(width, 6)}}  ",
                    f"{clean(message.ref):<{refs}}  ",
                    (preview(clean(message.content), 60), "$foreground-muted"),
                )
            )
        in_messages = sum(m.tokens for m in plan.messages)
        extra = plan.tokens - in_messages
        why = (
            "that start the reply (the chat template adds them)"
            if extra == REPLY_PRIMER
            else "besides the messages"
        )
        lines.append(Content(""))
        lines.append(
            Content(
                f"total {tokens(plan.tokens)} = {tokens(in_messages)} in messages"
                f" + {tokens(extra)} {why}"
            )
        )
        totals: dict[str, int] = {}
        for message in plan.messages:
            totals[message.layer.value] = totals.get(message.layer.value, 0) + message.tokens
        lines.append(
            Content("  ").join(
                Content.assemble(("■", layer_variable(layer)), f" {layer} {tokens(count)}")
                for layer, count in totals.items()
            )
        )
        return lines

    @staticmethod
    def _waiting_lines() -> list[Content]:
        return [
            Content.styled(
                "Asking the server to render this request with its chat template…",
                "$foreground-muted",
            )
        ]

    def _diff_lines(self) -> list[Content]:
        if self.previous_json is None:
            return [Content.styled("No previous request to compare with.", "$foreground-muted")]
        lines: list[Content] = []
        if self._previous_plan is not None:
            shared = shared_prefix(self._previous_plan.messages, self.plan.messages)
            lines.append(
                Content.styled(
                    f"same start as the previous request: {shared.messages} of "
                    f"{len(self.plan.messages)} messages, {tokens(shared.tokens)} tokens "
                    "(what a server's prompt cache can reuse)",
                    "$foreground-muted",
                )
            )
        diff = diff_lines(self.previous_json, self.json_text)
        if not diff:
            lines.append(
                Content.styled("No change from the previous request.", "$foreground-muted")
            )
            return lines
        assert self.previous_body is not None
        lines.extend(change_lines(self.previous_body, self.body))
        lines.extend(diff_content(diff))
        return lines


def change_lines(previous: Mapping[str, Any], body: Mapping[str, Any]) -> list[Content]:
    """What differs, said before the diff: each key of the body besides the messages
    (sampling, max_tokens, model, stop, ...), then which messages."""
    keys, messages = body_changes(previous, body)
    lines = [Content.styled("What changed since the previous request:", "bold")]
    lines.extend(
        Content.assemble(
            "  ", (clean(change.key), "bold $warning"), clean(change.words()[len(change.key) :])
        )
        for change in keys
    )
    if not keys:
        lines.append(Content.styled("  no key besides the messages", "$foreground-muted"))
    lines.append(Content(f"  {clean(messages.words())}"))
    lines.append(Content(""))
    return lines


def diff_content(diff: Sequence[str]) -> list[Content]:
    """Unified diff lines coloured as the inspector shows them (added, removed, hunks)."""
    lines: list[Content] = []
    for line in diff:
        style = ""
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "$accent"
        elif line.startswith("+"):
            style = "$success"
        elif line.startswith("-"):
            style = "$error"
        lines.append(Content.styled(clean(line), style) if style else Content(clean(line)))
    return lines


def rendered_lines(
    rendered: RenderedRequest | NotRendered,
    messages: Sequence[Mapping[str, Any]],
    layers: Sequence[str],
) -> tuple[list[Content], list[Content]]:
    """The rendered view's lines and gutters: a header with the token counts, the messages the
    template left out, then the text, what the template added in the accent colour and each
    message's content marked with its layer's colour in the gutter."""
    if isinstance(rendered, NotRendered):
        return [Content.styled(clean(rendered.reason), "$warning")], [Content("")]
    sent = [
        {"role": str(m.get("role", "")), "content": str(m.get("content") or "")} for m in messages
    ]
    counts = (
        "not counted by the server"
        if rendered.tokens is None
        else f"{tokens(rendered.tokens)} tokens by the server's tokenizer"
    )
    header = [
        Content.assemble(("As the server's chat template renders it", "bold"), f" · {counts}"),
    ]
    if rendered.template_tokens is not None:
        header.append(
            Content(
                f"template adds {tokens(rendered.template_tokens)} tokens "
                f"to the messages' {tokens(rendered.content_tokens or 0)}"
            )
        )
    for dropped in rendered.left_out:
        role = sent[dropped]["role"] if dropped < len(sent) else "?"
        header.append(
            Content.styled(
                f"message {dropped + 1} ({clean(role)}) is not in the rendered prompt: "
                "the template left it out, the model never reads it",
                "bold $error",
            )
        )
    if rendered.added:
        header.append(
            Content.assemble(
                (clean(rendered.added), "bold $accent"),
                " is added by the server's tokenizer before the text (counted above)",
            )
        )
    header.append(Content(""))
    lines = list(header)
    gutters = [Content("")] * len(header)
    line = Content.styled(clean(rendered.added), "bold $accent")
    owner: int | None = None
    for text, message in rendered_parts(rendered.text, sent):
        style = "" if message is not None else "$accent"
        pieces = text.split("\n")
        for number, piece in enumerate(pieces):
            if number:
                lines.append(line)
                gutters.append(_gutter(owner, layers))
                line, owner = Content(), None
            if piece:
                line += Content.styled(clean(piece), style) if style else Content(clean(piece))
            if message is not None and owner is None and piece:
                owner = message
    lines.append(line)
    gutters.append(_gutter(owner, layers))
    return lines, gutters


def _gutter(owner: int | None, layers: Sequence[str]) -> Content:
    if owner is not None and owner < len(layers):
        return Content.styled("▌ ", layer_variable(layers[owner]))
    return Content("  ")
