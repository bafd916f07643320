"""A streamed reply, once settled, shows exactly what a full render of its text shows."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown, signature, top_level_groups


class Pair(App[None]):
    """A streamed-then-settled reply beside a plain full render of the same text."""

    def compose(self) -> ComposeResult:
        yield ReplyMarkdown(id="streamed")
        yield Markdown(id="rendered")


def shape(widget: Widget) -> list[Any]:
    """What a Markdown tree shows: block types, their styled text (links included) and their
    children, in order."""
    found: list[Any] = []
    for child in widget.children:
        text = child._content.markup if isinstance(child, MarkdownBlock) else None
        code = getattr(child, "code", None)
        found.append((type(child).__name__, text, code, shape(child)))
    return found


async def stream_then_settle(text: str, pieces: int) -> tuple[App[None], list[Widget], list[Any]]:
    """Stream `text` in `pieces` writes, settle it; also render it whole. Returns the app,
    the blocks on screen before settling, and the shape a full render gives."""
    app = Pair()
    async with app.run_test(size=(100, 60)) as pilot:
        streamed = app.query_one("#streamed", ReplyMarkdown)
        stream = Markdown.get_stream(streamed)
        step = max(1, len(text) // pieces)
        for start in range(0, len(text), step):
            await stream.write(text[start : start + step])
            await pilot.pause()
        await stream.stop()
        before = list(streamed.children)
        await streamed.settle(text)
        rendered = app.query_one("#rendered", Markdown)
        await rendered.update(text)
        await pilot.pause()
        assert shape(streamed) == shape(rendered)
        assert streamed.source == text
        assert [block.has_class("-last") for block in streamed.children] == [
            index == len(streamed.children) - 1 for index in range(len(streamed.children))
        ]
        return app, before, [streamed, *streamed.children]


DOCUMENTS = {
    "headings, lists and code": (
        "# Plan\n\nFirst we **open** the database.\n\n- one\n- two\n  - nested\n\n"
        "```python\nimport sqlite3\nconn = sqlite3.connect('x')\n```\n\n"
        "1. first\n2. second\n\n> quoted `code`\n\n---\n\nThe end.\n"
    ),
    "a reference link defined at the end": (
        "See [the docs][docs] for details.\n\nMore text.\n\n[docs]: https://example.com/docs\n"
    ),
    "a setext heading underlined later": "Title line\nsecond line\n===========\n\nbody\n",
    "a list that turns loose": "- a\n- b\n\n- c\n\nafter\n",
    "a table": "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nbelow\n",
    "an unclosed fence": "text\n\n```\ncode that never closes\nmore\n",
}


@pytest.mark.parametrize("pieces", [1, 40])
@pytest.mark.parametrize("name", DOCUMENTS)
async def test_a_settled_stream_shows_what_a_full_render_shows(name: str, pieces: int) -> None:
    await stream_then_settle(DOCUMENTS[name], pieces)


async def test_blocks_whose_tokens_did_not_change_are_kept_not_rebuilt() -> None:
    text = "\n\n".join(f"Paragraph {n} with *some* text." for n in range(30)) + "\n"
    _, before, after = await stream_then_settle(text, 30)
    kept = [block for block in before if block in after]
    assert len(before) == 30
    # The last block may have been written in pieces; every earlier one is reused as is.
    assert len(kept) >= 29


async def test_a_block_changed_by_later_text_is_rebuilt() -> None:
    # While streaming, "[docs]" is plain text; the definition at the end makes it a link.
    text = DOCUMENTS["a reference link defined at the end"]
    _, before, after = await stream_then_settle(text, 40)
    first = before[0]
    assert first not in after


async def test_settling_a_different_text_replaces_what_no_longer_matches() -> None:
    app = Pair()
    async with app.run_test(size=(100, 40)) as pilot:
        streamed = app.query_one("#streamed", ReplyMarkdown)
        await streamed.settle("one\n\ntwo\n\nthree\n")
        first = streamed.children[0]
        await streamed.settle("one\n\nTWO\n")
        rendered = app.query_one("#rendered", Markdown)
        await rendered.update("one\n\nTWO\n")
        await pilot.pause()
        assert streamed.children[0] is first
        assert shape(streamed) == shape(rendered)


class Composed(App[None]):
    def compose(self) -> ComposeResult:
        yield ReplyMarkdown("First paragraph.\n\n- a list\n- that ends the reply\n")


async def test_a_reply_ends_on_its_text_not_on_a_blank_line() -> None:
    app = Composed()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        markdown = app.query_one(ReplyMarkdown)
        first, last = markdown.children
        assert first.styles.margin.bottom == 1
        assert last.styles.margin.bottom == 0
        assert markdown.size.height == 4  # paragraph, blank line, two list items


class EndsOnAHeading(App[None]):
    TEXT = "Intro line\n\n## Summary\n"

    def compose(self) -> ComposeResult:
        yield ReplyMarkdown(self.TEXT, id="reply")
        yield Markdown(self.TEXT, id="plain")


async def test_only_the_last_blocks_bottom_margin_goes() -> None:
    app = EndsOnAHeading()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        ours = app.query_one("#reply", ReplyMarkdown).children[-1].styles.margin
        plain = app.query_one("#plain", Markdown).children[-1].styles.margin
        assert plain.top > 0 and plain.bottom > 0
        assert (ours.top, ours.right, ours.bottom, ours.left) == (
            plain.top,
            plain.right,
            0,
            plain.left,
        )


def test_signatures_leave_out_line_numbers_only() -> None:
    from markdown_it import MarkdownIt

    parse = MarkdownIt("gfm-like").parse
    [a] = list(top_level_groups(parse("same *text*\n")))
    [_, b] = list(top_level_groups(parse("first\n\nsame *text*\n")))
    [c] = list(top_level_groups(parse("same **text**\n")))
    assert signature(a) == signature(b)
    assert signature(a) != signature(c)
