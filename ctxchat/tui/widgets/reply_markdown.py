"""The Markdown body of a reply: streamed in, then rendered once from its full text."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from markdown_it import MarkdownIt
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.visual import VisualType
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownStream

from ctxchat.tui.textual_compat.markdown import (
    ArrangedByWidth,
    HookedMarkdown,
    MarkdownBulletList,
    MarkdownList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
    block_text,
    child_blocks,
    without_own_component_classes,
)
from ctxchat.tui.widgets.code_fence import CodeFence

REFERENCE_MARK = "]:"
"""What every link reference definition holds (`[label]: url`)."""
TABLE_RULE = re.compile(r"^[ \t>]*\|?[ \t]*:?-+:?[ \t]*\|[ \t|:-]*$", re.MULTILINE)
"""The line under a table's header (`|---|:--:|`)."""
EMPTY_ITEM = re.compile(r"^[ \t>]*(?:[-+*]|\d{1,9}[.)])[ \t]*$", re.MULTILINE)
"""A list item with nothing on its line (`1.`, `-`)."""


def streams_as_rendered(markdown: str) -> bool:
    """Whether `markdown`, streamed in any pieces, shows what one render of it shows.

    `Markdown.append` parses again from the start of the last block, so every earlier block
    shows what a parse of the whole text shows, but for a link reference defined further
    down (`[docs]: https://…`), which makes a link of text above it; a table, whose
    streamed rows Textual adds as plain cells (links in them do nothing); and an empty list
    item (`1.` alone on its line), after which the next item, arriving, starts a list of
    its own. Cheap tests that may say no for a text that has none of these (a `]:` in
    code), never yes for one that has.
    """
    return (
        REFERENCE_MARK not in markdown
        and TABLE_RULE.search(markdown) is None
        and EMPTY_ITEM.search(markdown) is None
    )


COMPOSED_PARSE = 20_000
"""Longest text a reply parses as it composes (about 10 ms); longer ones are parsed in a
thread once mounted, as Textual does, so the screen never waits on one."""


async def stop_stream(stream: MarkdownStream) -> None:
    """Stop `stream` (it appends what it still queues first).

    A stream stopped before its task first ran (a reply that failed at once) hands the
    task's cancellation to whoever awaits it; only a cancellation of the caller itself
    goes on.
    """
    try:
        await stream.stop()
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise


if TYPE_CHECKING:
    _ListBase = MarkdownList
else:
    # At run time a plain mixin: Textual takes a widget's CSS from its first widget base
    # only, and that must stay the Textual list class, whose rules the list keeps.
    _ListBase = object


class DrawnList(_ListBase):
    """A list of one-paragraph items drawn by one widget, exactly as Textual draws it.

    Textual builds four widgets an item (a row, its bullet, a column and the paragraph),
    and every widget is styled, measured and placed again on each layout while a reply
    streams: lists are most of a long reply's widgets. When every item is one paragraph
    (the common case) or empty, the list draws the bullets and the text itself, with the
    same hanging indent. Any other list (nested blocks, several paragraphs in an item) is
    composed the way Textual composes it.

    An empty item shows its marker alone (`1.`), where Textual shows nothing at all: a
    reply of empty items (`1.\n2.\n3.`) would look blank, and the user must see what the
    model wrote. In a list Textual composes, `ReplyMarkdown`'s CSS gives an empty item a
    line for its marker.
    """

    _rows: list[tuple[str, Content]] | None = None
    _drawn: tuple[int, Content] | None = None  # (width, lines) last drawn

    @property
    def rows(self) -> list[tuple[str, Content]] | None:
        """Each item's marker and text when the list draws them itself, else None."""
        return self._rows

    def symbols(self, items: Sequence[MarkdownListItem]) -> list[str]:
        """The marker before each item, padded as Textual pads it."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        items = [block for block in child_blocks(self) if isinstance(block, MarkdownListItem)]
        if not all(_drawable(item) for item in items):
            yield from super().compose()
            return
        texts = [_item_text(item) for item in items]
        self._rows = list(zip(self.symbols(items), texts, strict=True))
        child_blocks(self).clear()

    def _lines(self, width: int) -> Content:
        """The list as it shows at `width`: wrapped lines, each item's under its first."""
        if self._drawn is not None and self._drawn[0] == width:
            return self._drawn[1]
        assert self._rows is not None
        lines: list[Content] = []
        for symbol, text in self._rows:
            wrapped = text.wrap(max(1, width - len(symbol)))
            lines.append(Content.styled(symbol, ".list--bullet") + wrapped[0])
            # Styled too, as under Textual's bullet: the cells are blank but keep its colour.
            indent = Content.styled(" " * len(symbol), ".list--bullet")
            lines.extend(indent + line for line in wrapped[1:])
        drawn = Content("\n").join(lines)
        self._drawn = (width, drawn)
        return drawn

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._rows is None:
            return super().get_content_height(container, viewport, width)
        return len(self._lines(width).split(allow_blank=True)) if width else 0

    def render(self) -> VisualType:
        if self._rows is None:
            return super().render()
        return self._lines(self.size.width)


def _drawable(item: MarkdownListItem) -> bool:
    """Whether the list can draw `item` itself: one paragraph, or nothing."""
    blocks = child_blocks(item)
    return not blocks or (len(blocks) == 1 and isinstance(blocks[0], MarkdownParagraph))


def _item_text(item: MarkdownListItem) -> Content:
    blocks = child_blocks(item)
    return block_text(blocks[0]) if blocks else Content("")


# A block's inline text takes the styles `ReplyMarkdown` resolves once.
_styled_by_the_reply = without_own_component_classes


def _styled_copy(block: type[MarkdownBlock]) -> type[MarkdownBlock]:
    """A subclass of Textual's `block` styled by the reply; same name, so every CSS rule
    for `block` still applies."""
    copy = type(block.__name__, (ArrangedByWidth, block), {"__module__": __name__})
    return _styled_by_the_reply(copy)


@_styled_by_the_reply
class DrawnBulletList(DrawnList, MarkdownBulletList):
    def symbols(self, items: Sequence[MarkdownListItem]) -> list[str]:
        return [item.bullet for item in items]


@_styled_by_the_reply
class DrawnOrderedList(DrawnList, MarkdownOrderedList):
    def symbols(self, items: Sequence[MarkdownListItem]) -> list[str]:
        # As MarkdownOrderedList numbers them: on from the first item's number, right-aligned.
        try:
            start = int(items[0].bullet) if items else 1
        except ValueError:
            start = 1
        numbers = [f"{number}. " for number in range(start, start + len(items))]
        size = max((len(number) for number in numbers), default=0)
        return [number.rjust(size + 1) for number in numbers]


_FENCE = _styled_copy(CodeFence)


def reply_parser() -> MarkdownIt:
    """The parser of a reply: Textual's "gfm-like", with HTML read as text.

    Textual's Markdown draws nothing for HTML (`<b>`, `<br>`, a `<details>` block): what
    the model wrote would vanish from the screen. With HTML off, markdown-it keeps those
    characters as text, which shows them as the model wrote them.
    """
    return MarkdownIt("gfm-like", {"html": False})


class ReplyMarkdown(ArrangedByWidth, HookedMarkdown):
    """Textual's Markdown for a reply: streamed with `Markdown.get_stream`, then one
    `update` with the full text.

    The last block of a rendered reply (marked `-last`) loses its bottom margin, and only
    that: the reply ends on its text, not on a blank line. It is set on the block itself,
    because a `:last-child` rule would restyle every block each time a streamed one is
    added, and a CSS `margin-bottom` rule would zero the other sides too.

    Lists of one-paragraph items are drawn by one widget each (`DrawnList`).

    The styles of inline text (bold, italic, struck, inline code) and of list markers are
    resolved here, once a reply, instead of on each paragraph, heading and list: Textual
    styles every component class of every block it mounts, half the cost of styling it.
    The rules are Markdown's own, so every block shows exactly what it showed before.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"em", "strong", "s", "code_inline", "list--bullet"}
    DEFAULT_CSS = """
    ReplyMarkdown {
        &:ansi > .code_inline {
            background: ansi_default !important;
        }
        &:dark > .code_inline {
            background: $warning 10%;
            color: $text-warning 95%;
        }
        &:light > .code_inline {
            background: $error 5%;
            color: $text-error 95%;
        }
        & > .em {
            text-style: italic;
        }
        & > .strong {
            text-style: bold;
        }
        & > .s {
            text-style: strike;
        }
        & > .list--bullet {
            color: $text-primary;
        }
        &:light > .list--bullet {
            color: $text-secondary;
        }
        /* An empty item of a list Textual composes keeps a line, so its marker shows. */
        & MarkdownList > Horizontal > Vertical {
            min-height: 1;
        }
        /* Code wider than the pane shows a scrollbar under it (drag it, or shift+wheel),
           rather than being cut at the edge with no sign that more follows. */
        & MarkdownFence {
            overflow-x: auto;
            scrollbar-size-horizontal: 1;
        }
    }
    """

    BLOCKS: dict[str, type[MarkdownBlock]] = {  # noqa: RUF012 (Textual declares it so)
        **{name: _styled_copy(block) for name, block in Markdown.BLOCKS.items()},
        "fence": _FENCE,
        "code_block": _FENCE,
        "bullet_list_open": DrawnBulletList,
        "ordered_list_open": DrawnOrderedList,
    }

    class Appended(Message):
        """What a stream appended is parsed, mounted and on screen. `size` is the length of
        the document it made, so a writer can tell which of its writes this covers."""

        def __init__(self, size: int) -> None:
            super().__init__()
            self.size = size

    _composed: str | None = None
    """The text whose blocks `compose` made, until the mount takes them as the document."""

    def __init__(
        self,
        markdown: str | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        open_links: bool = True,
    ) -> None:
        super().__init__(
            markdown,
            name=name,
            id=id,
            classes=classes,
            parser_factory=reply_parser,
            open_links=open_links,
        )
        self._appending = 0  # appends begun and not yet on screen
        self._appends_done = asyncio.Event()
        self._appends_done.set()

    def compose(self) -> ComposeResult:
        # A stored reply of ordinary length is parsed here, so its blocks mount with it and
        # the frame that shows the turn shows its text. Textual parses the text in a thread
        # once the widget is mounted: the turns of an opened conversation would show empty,
        # and fill in frames later.
        markdown = self.initial_markdown()
        if not markdown or len(markdown) > COMPOSED_PARSE:
            return
        self.take_initial_markdown()
        self._composed = markdown
        self.take_app_theme()
        yield from self.build_blocks(self.new_parser().parse(markdown))

    def composed_blocks(self) -> str | None:
        markdown, self._composed = self._composed, None
        return markdown

    def on_composed_mount(self, markdown: str) -> None:
        self._mark_last()
        self.adopt_document(markdown)

    def append(self, markdown: str) -> AwaitComplete:
        appended = super().append(markdown)
        size = len(self.source)  # the source grows as the append is called, not as it ends
        self._appending += 1
        self._appends_done.clear()

        async def then() -> None:
            try:
                await appended
                self.call_after_refresh(self.post_message, self.Appended(size))
            finally:
                self._appending -= 1
                if not self._appending:
                    self._appends_done.set()

        return AwaitComplete(then())

    async def finish(self, markdown: str) -> None:
        """Show `markdown`, the whole reply, once its stream has stopped.

        The whole text is rendered once, with `update`, when what streamed may show it
        differently (`streams_as_rendered`), or differs from it (a control sequence split
        across two writes is cleaned only in the whole text). Otherwise what streamed
        stays: building a long reply's blocks again is a pause the user sees after every
        long reply (figures in docs/performance.md).
        """
        # A stream's stop does not wait for an append it had begun (it shields it).
        await self._appends_done.wait()
        if markdown != self.source or not streams_as_rendered(markdown):
            await self.update(markdown)
        else:
            self._mark_last()

    def update(self, markdown: str) -> AwaitComplete:
        rendered = super().update(markdown)

        async def then() -> None:
            await rendered
            self._mark_last()

        return AwaitComplete(then())

    def _mark_last(self) -> None:
        blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
        for block in blocks[:-1]:
            if block.has_class("-last"):
                block.remove_class("-last")
                block.styles.clear_rule("margin")
        if blocks and not blocks[-1].has_class("-last"):
            last = blocks[-1]
            top, right, _, left = last.styles.margin
            last.add_class("-last")
            last.styles.margin = (top, right, 0, left)
