"""A reply's code blocks stand apart and name their language; HTML in a reply shows as text."""

from __future__ import annotations

import html
import re
from collections import defaultdict

import pytest
from rich.color import ColorSystem
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from ctxchat.core.history import MessageStatus
from ctxchat.tui.live_turn import LiveTurn
from ctxchat.tui.themes import load_themes, shipped_theme_dirs
from ctxchat.tui.views import MessageView
from ctxchat.tui.widgets.code_fence import fence_language
from ctxchat.tui.widgets.message_item import MessageItem
from ctxchat.tui.widgets.reply_markdown import ReplyMarkdown

from ..colours import apart
from ..waiting import until

CODE = "Open it:\n\n```python\nimport sqlite3\n```\n\nThen:\n\n```\nls -la\n```\n"
SHIPPED = [theme.name for theme in load_themes(shipped_theme_dirs())[0]]
SVG_TEXT = re.compile(
    r'x="([\d.]+)" y="[\d.]+" textLength="[\d.]+" clip-path="url\(#[\w-]+-line-(\d+)\)">([^<]*)</text>'
)
CELL_WIDTH = 12.2  # how wide Rich draws one cell in an SVG screenshot
THEMES = [*SHIPPED, "textual-dark", "textual-light"]  # textual-dark is the default


class Reply(App[None]):
    """One reply in a scroll view, as the conversation holds it, in `theme`."""

    def __init__(self, text: str, theme: str = "textual-dark") -> None:
        super().__init__()
        self._text = text
        self._theme_name = theme

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield ReplyMarkdown(self._text)

    def on_mount(self) -> None:
        for theme in load_themes(shipped_theme_dirs())[0]:
            self.register_theme(theme)
        self.theme = self._theme_name


class OneTurn(App[None]):
    def compose(self) -> ComposeResult:
        yield MessageItem(MessageView(1, "assistant", "", MessageStatus.STREAMING, model="m"))


def streaming_into(item: MessageItem) -> LiveTurn:
    """A turn whose reply streams into `item`, as the app starts one."""
    live = LiveTurn(1, reply_id=item.message_id)
    item.start_stream(live)
    return live


async def arrive(item: MessageItem, live: LiveTurn, text: str) -> None:
    """`text` of the reply arrives, as the app's turn hands it on."""
    live.received(text, "")
    await item.arrived()


def screen_text(app: App[None]) -> str:
    """The visible characters of the screen, line by line, read from an SVG screenshot."""
    lines: dict[int, dict[int, str]] = defaultdict(dict)
    for x, line, text in SVG_TEXT.findall(app.export_screenshot()):
        column = round(float(x) / CELL_WIDTH)
        for offset, character in enumerate(html.unescape(text).replace("\xa0", " ")):
            lines[int(line)][column + offset] = character
    return "\n".join(
        "".join(cells.get(column, " ") for column in range(max(cells, default=-1) + 1)).rstrip()
        for _, cells in sorted(lines.items())
    )


def labels(app: App[None]) -> list[str]:
    """The language label of each code block on screen ("" for a block without one)."""
    return [
        str(fence.query_one(".code-fence--language").render())
        if fence.has_class("-labelled")
        else ""
        for fence in app.query(MarkdownFence)
    ]


@pytest.mark.parametrize(
    ("info", "language"),
    [("python", "python"), ("py title=x.py", "py"), ("  rust  ", "rust"), ("", ""), ("   ", "")],
)
def test_the_language_is_the_first_word_of_the_fence(info: str, language: str) -> None:
    assert fence_language(info) == language


@pytest.mark.parametrize("theme", THEMES)
async def test_a_code_block_stands_apart_from_the_conversation_in_every_theme(theme: str) -> None:
    app = Reply(CODE, theme)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        reply = app.query_one(ReplyMarkdown)
        around = reply.background_colors[1]
        for fence in app.query(MarkdownFence):
            block = fence.background_colors[1]
            for system in (None, ColorSystem.EIGHT_BIT):  # truecolor, and 256 colours
                assert apart(around, block, system) >= 15, (theme, system, around, block)


async def test_a_fence_names_its_language_and_a_plain_one_names_none() -> None:
    app = Reply(CODE)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert labels(app) == ["python", ""]
        shown = screen_text(app)
        assert shown.count("python") == 1 and "import sqlite3" in shown and "ls -la" in shown
        # The label sits in the code's top padding: a labelled block is no taller.
        python, plain = app.query(MarkdownFence)
        assert python.outer_size.height == plain.outer_size.height


async def test_a_fence_split_across_deltas_shows_its_language_while_it_streams() -> None:
    app = OneTurn()
    async with app.run_test(size=(60, 20)) as pilot:
        item = app.query_one(MessageItem)
        live = streaming_into(item)
        deltas = ["Here:\n\n``", "`py", "thon\nimport sql", "ite3\n", "db = sqlite3.connect(':m"]
        for delta in deltas:
            await arrive(item, live, delta)
        # The fence is not closed yet: it shows as a code block, named by its whole word.
        await until(pilot, lambda: "db = sqlite3.connect(':m" in screen_text(app))
        assert labels(app) == ["python"]
        assert "``" not in screen_text(app)

        full = "".join(deltas) + "emory:')\n```\n\nDone <b>here</b>."
        await item.finish(full)
        await pilot.pause()
        assert labels(app) == ["python"]
        shown = screen_text(app)
        assert "db = sqlite3.connect(':memory:')" in shown
        assert "Done <b>here</b>." in shown


async def test_a_fence_whose_language_grows_in_the_stream_is_relabelled() -> None:
    app = OneTurn()
    async with app.run_test(size=(60, 20)) as pilot:
        item = app.query_one(MessageItem)
        live = streaming_into(item)
        await arrive(item, live, "```ja")
        await until(pilot, lambda: labels(app) == ["ja"])
        await arrive(item, live, "vascript\nlet x = 1;\n")
        await until(pilot, lambda: labels(app) == ["javascript"])


HTML = (
    "Inline <b>bold</b>, a<br>break and <kbd>Ctrl</kbd>+<kbd>C</kbd>.\n\n"
    "<details>\n<summary>More</summary>\n\nHidden [red]text[/red]\n</details>\n\n"
    "<div align=center>\n<img src=x.png>\n</div>\n"
)


async def test_html_in_a_reply_shows_as_the_characters_the_model_wrote() -> None:
    app = Reply(HTML)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        shown = [str(block.content) for block in app.query(MarkdownBlock)]
        assert shown == [
            "Inline <b>bold</b>, a<br>break and <kbd>Ctrl</kbd>+<kbd>C</kbd>.",
            "<details> <summary>More</summary>",
            "Hidden [red]text[/red] </details>",
            "<div align=center> <img src=x.png> </div>",
        ]


async def test_textuals_own_markdown_drops_html() -> None:
    """Why the reply has its own parser: Textual's Markdown shows none of these characters."""

    class Plain(App[None]):
        def compose(self) -> ComposeResult:
            yield Markdown("a <b>x</b> b\n\n<details>\nhidden\n</details>\n")

    app = Plain()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        assert [str(block.content) for block in app.query(MarkdownBlock)] == ["a x b"]
