"""The inspector's rendered view: asked of the server once, when first shown, never blocking;
the text as the template lays it out, its tokens, what the template adds and leaves out."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from textual.widgets import TabbedContent

from ctxchat.chat.rendered import NotRendered, RenderedRequest
from ctxchat.testing.server.flavours import render_chatml
from ctxchat.tui.screens.inspector import RequestInspector, WrappedLines, rendered_lines

from ..waiting import until
from .widget_hosts import HostApp, make_plan, request_body

MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Name a colour."},
]


class Server:
    """Renders as llama.cpp does, once released; counts the times it was asked."""

    def __init__(self, *, drops_system: bool = False) -> None:
        self.asked: list[list[Mapping[str, str]]] = []
        self.released = asyncio.Event()
        self.released.set()
        self.drops_system = drops_system

    async def render(self, messages: Sequence[Mapping[str, str]]) -> RenderedRequest:
        self.asked.append(list(messages))
        await self.released.wait()
        shown = [m for m in messages if not (self.drops_system and m["role"] == "system")]
        left_out = tuple(i for i, m in enumerate(messages) if m not in shown)
        return RenderedRequest(render_chatml(shown), 120, 80, left_out, "<bos>")


def view_text(screen: RequestInspector) -> str:
    return screen.query_one("#rendered-view", WrappedLines).text


async def test_the_server_is_asked_once_when_the_view_is_first_shown() -> None:
    plan = make_plan()
    server = Server()
    app = HostApp(lambda: [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(request_body(plan), plan, render=server.render)
        await app.push_screen(screen)
        await pilot.pause()
        assert server.asked == []  # the JSON tab asks nothing

        await pilot.press("ctrl+r")
        await until(pilot, lambda: screen.rendered is not None)
        assert screen.query_one(TabbedContent).active == "rendered"
        await pilot.press("ctrl+j", "ctrl+r", "left", "right")
        await pilot.pause()

        assert server.asked == [plan.request_messages()]
        text = view_text(screen)
        assert text.startswith(
            "As the server's chat template renders it · 120 tokens by the server's tokenizer\n"
            "template adds 40 tokens to the messages' 80\n"
            "<bos> is added by the server's tokenizer before the text (counted above)\n"
        )
        assert "\n\n<bos><|im_start|>system\n" in text
        assert text.endswith("<|im_start|>assistant\n")


async def test_a_slow_server_never_blocks_the_inspector() -> None:
    plan = make_plan()
    server = Server()
    server.released.clear()
    app = HostApp(lambda: [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(request_body(plan), plan, tab="rendered", render=server.render)
        await app.push_screen(screen)
        await until(pilot, lambda: server.asked)
        assert view_text(screen) == (
            "Asking the server to render this request with its chat template…"
        )
        await pilot.press("ctrl+t")  # the other tabs still answer
        assert screen.query_one(TabbedContent).active == "messages"
        server.released.set()
        await until(pilot, lambda: screen.rendered is not None)
        assert "<|im_start|>assistant" in view_text(screen)


async def test_a_server_that_cannot_render_says_so_in_the_view() -> None:
    plan = make_plan()
    reason = "This server does not render its chat template for clients."

    async def cannot(messages: Sequence[Mapping[str, str]]) -> NotRendered:
        return NotRendered(reason, lasting=True)

    app = HostApp(lambda: [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(request_body(plan), plan, tab="rendered", render=cannot)
        await app.push_screen(screen)
        await until(pilot, lambda: screen.rendered is not None)
        assert view_text(screen) == reason

        without = RequestInspector(request_body(plan), plan, tab="rendered")
        await app.push_screen(without)
        await pilot.pause()
        assert view_text(without) == (
            "No server to ask here: only the server can render its template."
        )


def test_the_lines_mark_template_text_contents_and_what_was_left_out() -> None:
    rendered = RenderedRequest(render_chatml(MESSAGES[1:]), 20, 4, (0,), "<bos>")

    lines, gutters = rendered_lines(rendered, MESSAGES, ["system", "input"])

    assert [line.plain for line in lines] == [
        "As the server's chat template renders it · 20 tokens by the server's tokenizer",
        "template adds 16 tokens to the messages' 4",
        "message 1 (system) is not in the rendered prompt: the template left it out, "
        "the model never reads it",
        "<bos> is added by the server's tokenizer before the text (counted above)",
        "",
        "<bos><|im_start|>user",
        "Name a colour.<|im_end|>",
        "<|im_start|>assistant",
        "",
    ]
    # The user's line carries the input layer's mark; template-only lines carry none.
    assert [gutter.plain for gutter in gutters[5:]] == ["  ", "▌ ", "  ", "  "]
    assert gutters[6].spans[0].style == "$layer-input"
    template = [span for span in lines[6].spans if span.style == "$accent"]
    assert [lines[6].plain[s.start : s.end] for s in template] == ["<|im_end|>"]
