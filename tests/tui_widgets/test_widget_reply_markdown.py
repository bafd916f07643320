"""A streamed reply, once finished, shows exactly what a full render of its text shows."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from markdown_it import MarkdownIt
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.selection import Selection
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from ctxchat.tui.textual_compat.markdown import arranged_by_width, block_text
from ctxchat.tui.widgets import reply_markdown
from ctxchat.tui.widgets.code_fence import CodeFence
from ctxchat.tui.widgets.reply_markdown import (
    DrawnList,
    ReplyMarkdown,
    reply_parser,
    stop_stream,
)

from ..textual_internals import drawn_rows
from ..waiting import until


class Pair(App[None]):
    """A streamed-then-finished reply beside a full render of the same text."""

    def compose(self) -> ComposeResult:
        yield ReplyMarkdown(id="streamed")
        yield ReplyMarkdown(id="rendered")


def shape(widget: Widget) -> list[Any]:
    """What a Markdown tree shows: block types, their styled text (links included) and their
    children, in order."""
    found: list[Any] = []
    for child in widget.children:
        text = block_text(child).markup if isinstance(child, MarkdownBlock) else None
        code = getattr(child, "code", None)
        rows = child.rows if isinstance(child, DrawnList) else None
        drawn = None if rows is None else [(symbol, line.markup) for symbol, line in rows]
        found.append((type(child).__name__, text, code, drawn, shape(child)))
    return found


async def stream_then_finish(text: str, pieces: int) -> None:
    """Stream `text` in `pieces` writes, then render it once whole, as a finished reply is;
    check it shows what a full render of the text shows."""
    app = Pair()
    async with app.run_test(size=(100, 60)) as pilot:
        streamed = app.query_one("#streamed", ReplyMarkdown)
        stream = Markdown.get_stream(streamed)
        step = max(1, len(text) // pieces)
        for start in range(0, len(text), step):
            await stream.write(text[start : start + step])
            await pilot.pause()
        await stop_stream(stream)
        await streamed.finish(text)
        rendered = app.query_one("#rendered", ReplyMarkdown)
        await rendered.update(text)
        await pilot.pause()
        assert shape(streamed) == shape(rendered)
        assert streamed.source == text
        assert [block.has_class("-last") for block in streamed.children] == [
            index == len(streamed.children) - 1 for index in range(len(streamed.children))
        ]


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
    "a list of empty items": "Steps:\n\n1.\n2.\n3.\n",
}


@pytest.mark.parametrize("pieces", [1, 7, 40, 10_000])  # 10,000: a character a write
@pytest.mark.parametrize("name", DOCUMENTS)
async def test_a_finished_stream_shows_what_a_full_render_shows(name: str, pieces: int) -> None:
    await stream_then_finish(DOCUMENTS[name], pieces)


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


# --- lists drawn by one widget ------------------------------------------------------------

LISTS = {
    "wrapped items with inline styles": (
        "- **Durability:** both fsync the log on commit; `synchronous = NORMAL` trades the "
        "last transaction after a power cut for fewer fsyncs.\n- short\n\nafter\n"
    ),
    "an ordered list starting at 9, loose": (
        "9. Read `user_version`.\n\n10. Apply every script with a higher number, in one "
        "transaction each, long enough to wrap.\n\nafter\n"
    ),
    "two lists in a row": "- a\n- b\n\n1. c\n2. d\n\n- e\n",
    "a nested list": (
        "- outer\n  - nested one\n  - nested two, long enough to wrap around the width of "
        "this narrow test app\n- back\n"
    ),
    "several paragraphs in an item": "- one\n\n  more of one\n- two\n",
    "a hard line break": "- first line  \n  second line\n- next\n",
}


class TextualMarkdown(Markdown):
    """Textual's own Markdown with the reply's parser and code blocks: what the reply's ways
    of drawing faster must draw exactly."""

    BLOCKS: dict[str, type[MarkdownBlock]] = {  # noqa: RUF012 (Textual declares it so)
        **Markdown.BLOCKS,
        "fence": CodeFence,
        "code_block": CodeFence,
    }

    def __init__(self, markdown: str) -> None:
        super().__init__(markdown, parser_factory=reply_parser)


class OneDocument(App[None]):
    def __init__(self, widget: Markdown, theme: str) -> None:
        super().__init__()
        self._widget = widget
        self._theme_name = theme

    def compose(self) -> ComposeResult:
        yield self._widget

    def on_mount(self) -> None:
        self.theme = self._theme_name


async def drawn_cells(
    widget: Markdown, width: int, theme: str, rows: int = 16
) -> list[list[tuple[str, str]]]:
    """Each screen row as (character, style) cells."""
    app = OneDocument(widget, theme)
    async with app.run_test(size=(width, rows)) as pilot:
        await pilot.pause()
        strips = drawn_rows(app.screen)
        return [
            [(char, str(segment.style)) for segment in strip for char in segment.text]
            for strip in strips
        ]


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("width", [30, 60])
@pytest.mark.parametrize("name", LISTS)
async def test_a_list_looks_exactly_as_textual_draws_it(name: str, width: int, theme: str) -> None:
    text = LISTS[name]
    ours = await drawn_cells(ReplyMarkdown(text), width, theme)
    textual = await drawn_cells(TextualMarkdown(text), width, theme)
    assert ours == textual


INLINE = (
    "# A *title* with `code`\n\nSome **bold**, *italic*, ~~struck~~ and `inline code`.\n\n"
    "### Small `heading`\n\n> A quote with **bold** and `code`.\n\n"
    "- item with *em*\n\n  and a second paragraph with `code`\n- two\n\n"
    "| name | value |\n|---|---|\n| `key` | **on** |\n\n"
    "```python\nprint('code')\n```\n"
)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_inline_styles_look_exactly_as_textual_draws_them(theme: str) -> None:
    # Resolved once on the reply, not on each block: the cells must not change.
    ours = await drawn_cells(ReplyMarkdown(INLINE), 50, theme, rows=40)
    textual = await drawn_cells(TextualMarkdown(INLINE), 50, theme, rows=40)
    assert ours == textual


async def test_inline_styles_follow_a_change_of_theme() -> None:
    app = OneDocument(ReplyMarkdown(INLINE), "textual-dark")
    async with app.run_test(size=(50, 40)) as pilot:
        await pilot.pause()
        app.theme = "textual-light"
        await pilot.pause()
        switched = [
            [(char, str(segment.style)) for segment in strip for char in segment.text]
            for strip in drawn_rows(app.screen)
        ]
    assert switched == await drawn_cells(TextualMarkdown(INLINE), 50, "textual-light", rows=40)


async def test_a_list_of_one_paragraph_items_is_one_widget() -> None:
    app = OneDocument(ReplyMarkdown(LISTS["wrapped items with inline styles"]), "textual-dark")
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        [drawn] = [block for block in app.query(MarkdownBlock) if isinstance(block, DrawnList)]
        assert list(drawn.children) == []
        assert drawn.rows is not None
        assert [symbol for symbol, _ in drawn.rows] == ["• ", "• "]
        # Selecting it gives its text, markers included.
        selected = drawn.get_selection(Selection(None, None))
        assert selected is not None
        assert selected[0].startswith("• Durability: both fsync")
        assert "• short" in selected[0]


async def test_lists_it_cannot_draw_are_composed_as_textual_composes_them() -> None:
    app = OneDocument(ReplyMarkdown(LISTS["several paragraphs in an item"]), "textual-dark")
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        [drawn] = [block for block in app.query(MarkdownBlock) if isinstance(block, DrawnList)]
        assert drawn.rows is None
        assert len(drawn.query("MarkdownParagraph")) == 3


def screen_lines(app: App[None]) -> list[str]:
    """The screen's rows as text, trailing blanks cut, trailing empty rows left out."""
    rows = ["".join(s.text for s in strip).rstrip() for strip in drawn_rows(app.screen)]
    while rows and not rows[-1]:
        rows.pop()
    return rows


EMPTY_ITEMS = {
    # What Gemma sometimes answers: Textual draws an empty item as nothing at all.
    "numbers only": ("1.\n2.\n3.", ["   1.", "   2.", "   3."]),
    "bullets only": ("-\n-\n-", ["  •", "  •", "  •"]),
    "one empty among others": ("- a\n- \n- c\n", ["  • a", "  •", "  • c"]),
    # A list Textual composes (an item of two paragraphs) keeps its empty items' markers.
    "beside an item it cannot draw": (
        "1.\n2. two\n\n   more of two\n3.\n",
        ["   1.", "   2. two", "      more of two", "   3."],
    ),
}


@pytest.mark.parametrize("name", EMPTY_ITEMS)
async def test_empty_list_items_show_their_markers(name: str) -> None:
    text, shown = EMPTY_ITEMS[name]
    app = OneDocument(ReplyMarkdown(text), "textual-dark")
    async with app.run_test(size=(40, 16)) as pilot:
        await pilot.pause()
        assert screen_lines(app) == shown


@pytest.mark.parametrize("name", EMPTY_ITEMS)
async def test_empty_list_items_show_their_markers_as_they_stream(name: str) -> None:
    text, shown = EMPTY_ITEMS[name]
    app = Streamed()
    async with app.run_test(size=(40, 16)) as pilot:
        reply = app.query_one(ReplyMarkdown)
        stream = Markdown.get_stream(reply)
        for character in text:
            await stream.write(character)
        await until(pilot, lambda: screen_lines(app) == shown)
        await stop_stream(stream)
        await reply.finish(text)
        await pilot.pause()
        assert screen_lines(app) == shown


async def test_a_stream_stopped_before_it_ran_does_not_stop_its_caller() -> None:
    # A reply that fails at once ends its stream before the stream's task first ran.
    app = Pair()
    async with app.run_test(size=(100, 40)):
        stream = Markdown.get_stream(app.query_one("#streamed", ReplyMarkdown))
        await stop_stream(stream)  # raised CancelledError into this task before
        assert asyncio.current_task() is not None
        await asyncio.sleep(0)  # still running: not cancelled


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_a_long_reply_looks_exactly_as_textual_draws_it(theme: str) -> None:
    """Blocks placed by width alone (`arranged_by_width`) land where Textual puts them."""
    text = "\n".join(DOCUMENTS.values()) + "\n" + INLINE
    ours = await drawn_cells(ReplyMarkdown(text), 70, theme, rows=90)
    textual = await drawn_cells(TextualMarkdown(text), 70, theme, rows=90)
    assert ours == textual


class Sized(App[None]):
    def compose(self) -> ComposeResult:
        with Vertical(id="auto"):
            yield Static("a")
            yield Static("b")
        with Vertical(id="relative"):
            yield Static("a")
            yield Static("b", classes="fill")

    CSS = "#relative > .fill { height: 1fr; }"


async def test_children_of_auto_height_are_arranged_by_width_alone() -> None:
    app = Sized()
    async with app.run_test():
        auto = app.query_one("#auto", Vertical)
        relative = app.query_one("#relative", Vertical)
        assert arranged_by_width(auto, Size(40, 12)) == Size(40, 0)
        # A child that takes a share of the height is placed by it: the height stays.
        assert arranged_by_width(relative, Size(40, 12)) == Size(40, 12)


class Streamed(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.appended: list[int] = []

    def compose(self) -> ComposeResult:
        yield ReplyMarkdown()

    def on_reply_markdown_appended(self, event: ReplyMarkdown.Appended) -> None:
        self.appended.append(event.size)


async def test_each_streamed_append_is_announced_once_it_is_on_screen() -> None:
    app = Streamed()
    async with app.run_test() as pilot:
        markdown = app.query_one(ReplyMarkdown)
        stream = Markdown.get_stream(markdown)
        await stream.write("# Title\n\n")
        # The stream joins what is written before it draws: let it draw the first part.
        await until(pilot, lambda: len(app.appended) == 1)
        await stream.write("Some text.")
        await until(pilot, lambda: len(app.appended) == 2)
        await stop_stream(stream)
        # Each announces the length of the document it drew (read as it is handled, the
        # source may already hold the next write on a loaded machine).
        assert app.appended == [len("# Title\n\n"), len("# Title\n\nSome text.")]
        assert [type(block).__name__ for block in markdown.children] == [
            "MarkdownH1",
            "MarkdownParagraph",
        ]


async def test_code_wider_than_the_pane_shows_a_scrollbar_under_it() -> None:
    long_line = "x = " + "1 + " * 40 + "1"
    text = f"```python\n{long_line}\n```\n\n```python\nshort = 1\n```\n"
    app = OneDocument(ReplyMarkdown(text), "textual-dark")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        wide, narrow = app.query(MarkdownFence)
        assert wide.show_horizontal_scrollbar and wide.max_scroll_x > 0
        assert not narrow.show_horizontal_scrollbar
        # The scrollbar takes one row under the code; nothing else changes height.
        assert wide.size.height == narrow.size.height + 1
        wide.scroll_to(x=wide.max_scroll_x, animate=False)
        await pilot.pause()
        assert wide.scroll_x == wide.max_scroll_x


@pytest.mark.perf
async def test_a_reply_and_its_blocks_arrange_once_for_any_height() -> None:
    """Protects layout time (pins the arrangement cache): the arrangement made to measure the
    reply (height 0) is the one that places it."""
    app = OneDocument(ReplyMarkdown(INLINE), "textual-dark")
    async with app.run_test(size=(70, 40)) as pilot:
        await pilot.pause()
        reply = app.query_one(ReplyMarkdown)
        assert reply.arrange(Size(70, 55)) is reply.arrange(Size(70, 0))
        fence = reply.query_one(MarkdownFence)
        assert fence.arrange(Size(66, 9)) is fence.arrange(Size(66, 0))


def parsed_in(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For every Markdown parse from now on: whether it ran in the main thread."""
    threads: list[bool] = []
    original = MarkdownIt.parse

    def parse(self: MarkdownIt, src: str, env: Any = None) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return original(self, src, env)

    monkeypatch.setattr(MarkdownIt, "parse", parse)
    return threads


async def test_a_stored_reply_is_parsed_as_it_composes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its blocks mount with it, so the frame that shows the turn shows its text; Textual
    # parses in a thread once mounted, and the text filled in frames later.
    threads = parsed_in(monkeypatch)
    text = DOCUMENTS["headings, lists and code"]
    app = OneDocument(ReplyMarkdown(text), "textual-dark")
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        reply = app.query_one(ReplyMarkdown)
        assert threads == [True]
        assert reply.source == text
        assert reply.children[-1].has_class("-last")
        # It goes on as any rendered reply: a new text replaces its blocks.
        await reply.update("Just one line now.\n")
        await pilot.pause()
        assert shape(reply) == [("MarkdownParagraph", "Just one line now.", None, None, [])]
        assert reply.source == "Just one line now.\n"


async def test_a_very_long_stored_reply_is_parsed_in_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(reply_markdown, "COMPOSED_PARSE", 100)
    threads = parsed_in(monkeypatch)
    text = DOCUMENTS["headings, lists and code"]
    assert len(text) > 100
    ours = await drawn_cells(ReplyMarkdown(text), 60, "textual-dark", rows=30)
    assert threads == [False]
    assert ours == await drawn_cells(TextualMarkdown(text), 60, "textual-dark", rows=30)


@pytest.mark.parametrize(
    ("text", "as_rendered"),
    [
        ("# Plan\n\n- one\n- two\n\n```python\nx = 1\n```\n\n---\n\nThe end.\n", True),
        ("See [the docs][docs].\n\n[docs]: https://example.com\n", False),
        ("| a | b |\n|---|---|\n| 1 | 2 |\n", False),
        ("a | b\n--- | :-:\n1 | 2\n", False),
        ("> | a |\n> | - |\n", False),
        ("Title\n-----\n\nbody\n", True),  # a setext heading, not a table
        ("1.\n2.\n3.", False),
        ("- a\n-\n- c\n", False),
        ("> * \n", False),
        ("Costs 1.5 or 2.\n\n- one\n", True),
    ],
)
def test_a_text_streams_as_rendered_unless_it_has_references_tables_or_empty_items(
    text: str, as_rendered: bool
) -> None:
    assert reply_markdown.streams_as_rendered(text) is as_rendered


async def test_a_finished_reply_with_a_table_has_cells_whose_links_work() -> None:
    # Streamed rows are plain cells; the table is rendered whole once the reply ends.
    text = "| name | link |\n|---|---|\n| a | [docs](https://example.com) |\n| b | c |\n"
    await stream_then_finish(text, 4)
