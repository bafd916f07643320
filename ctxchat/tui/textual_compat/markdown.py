"""Textual's private Markdown internals ctxchat uses (see the package's docstring).

Textual is pinned exactly; each internal named here is checked, by name and signature, in
`tests/tui_widgets/test_textual_compat.py`, which says which one changed when Textual is
updated. Code elsewhere uses only Textual's public API and these names.

What each is for, and what it buys (figures from `bench/ui.py`), is said where it is used:
`ctxchat/tui/widgets/reply_markdown.py` (lists drawn by one widget, inline styles resolved
once a reply, and a stored reply drawn in the first frame that shows it). `ArrangedByWidth` overrides a public method.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.content import Content
from textual.events import Mount
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget
from textual.widgets import Markdown

# Block classes `Markdown.BLOCKS` maps to that `textual.widgets.markdown` does not export.
from textual.widgets._markdown import (
    MarkdownBlock,
    MarkdownBulletList,
    MarkdownList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
)

__all__ = [
    "ArrangedByWidth",
    "HookedMarkdown",
    "MarkdownBulletList",
    "MarkdownList",
    "MarkdownListItem",
    "MarkdownOrderedList",
    "MarkdownParagraph",
    "block_text",
    "child_blocks",
    "without_own_component_classes",
]


# --- Markdown blocks ---------------------------------------------------------------------


def child_blocks(block: MarkdownBlock) -> list[MarkdownBlock]:
    """The blocks `block` holds before it composes them (a list's items, an item's paragraph)."""
    return block._blocks


def block_text(block: MarkdownBlock) -> Content:
    """The inline text a paragraph or heading block shows."""
    return block._content


B = TypeVar("B", bound=type[MarkdownBlock])


def without_own_component_classes(block: B) -> B:
    """`block`, with no component classes of its own: its inline text takes the styles its
    `Markdown` resolves. What `inherit_component_classes=False` does for a `DOMNode` class;
    `Widget.__init_subclass__` does not pass that keyword on, so it is set on the class."""
    block._inherit_component_classes = False
    return block


if TYPE_CHECKING:
    _WidgetBase = Widget
else:
    _WidgetBase = object  # a plain mixin at run time: CSS comes from the first widget base


def arranged_by_width(container: Widget, size: Size) -> Size:
    """The size to arrange `container`'s children in: `size` without its height when every
    child is of auto height (its place does not depend on the height then).

    Textual arranges a container twice a layout: once to measure it, with the height of what
    holds it, and once to place its children, with its own height, which changes whenever a
    streamed reply grows. Each arrangement is cached by the size it was given, and so is
    every child's box model; with the height left out, both passes share one arrangement and
    the blocks that did not change keep their cached box models.
    """
    if size.height and all(_auto_height(child) for child in container.children):
        return Size(size.width, 0)
    return size


def _auto_height(widget: Widget) -> bool:
    height = widget.styles.height
    return height is not None and height.is_auto and not widget.styles.is_docked


class ArrangedByWidth(_WidgetBase):
    """Arranges its children by width alone when it can (`arranged_by_width`).

    `Widget.arrange` is public but documented as "best left alone": what this relies on is
    that Textual caches an arrangement by the size it is given.
    """

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        return super().arrange(arranged_by_width(self, size), optimal)


class HookedMarkdown(Markdown):
    """Textual's `Markdown` with the private steps ctxchat uses given public names.

    - `build_blocks`: the blocks Textual builds from tokens.
    - `composed_blocks` / `on_composed_mount`: blocks built in `compose` are taken as the
      document when the widget mounts, instead of Textual parsing the text again then.
    """

    def build_blocks(self, tokens: Iterable[Token]) -> Iterable[MarkdownBlock]:
        """The blocks Textual builds from `tokens`."""
        return self._parse_markdown(tokens)

    def take_initial_markdown(self) -> str | None:
        """The text the widget was made with, which it then no longer parses on mount."""
        markdown, self._initial_markdown = self._initial_markdown, None
        return markdown

    def initial_markdown(self) -> str | None:
        """The text the widget was made with, not yet parsed."""
        return self._initial_markdown

    def new_parser(self) -> MarkdownIt:
        """The Markdown parser Textual would use for this widget."""
        return MarkdownIt("gfm-like") if self._parser_factory is None else self._parser_factory()

    def take_app_theme(self) -> None:
        """Blocks built from now on follow the app's theme, as `update` makes them."""
        self._theme = self.app.theme

    def adopt_document(self, markdown: str) -> None:
        """The blocks on screen show `markdown`: take it as the document, as `update` does."""
        self._markdown = markdown
        self._table_of_contents = None
        lines = markdown.splitlines()
        self._last_parsed_line = len(lines) - (1 if lines and lines[-1] else 0)
        self.post_message(
            Markdown.TableOfContentsUpdated(self, self.table_of_contents).set_sender(self)
        )

    def composed_blocks(self) -> str | None:
        """The text whose blocks `compose` made, taken once; None if it made none."""
        return None

    def on_composed_mount(self, markdown: str) -> None:
        """The blocks `compose` made for `markdown` are mounted."""

    # Sync, like Widget's handler (Markdown's is async: Textual calls either kind).
    def _on_mount(self, event: Mount) -> None:  # type: ignore[override]
        markdown = self.composed_blocks()
        if markdown is None:
            return  # Markdown's own handler parses the text and mounts its blocks
        event.prevent_default()  # which would parse it again, and replace these blocks
        Widget._on_mount(self, event)
        self.on_composed_mount(markdown)
