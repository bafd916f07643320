"""The Markdown body of a reply: streamed in, then settled against a parse of the full text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.await_complete import AwaitComplete
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

SIGNATURE = "ctxchat.signature"
"""Key in a top-level token's `meta` holding the signature of the tokens it was built from."""

# The top-level tokens Textual's Markdown turns into a block; any other renders nothing.
BLOCK_TOKENS = frozenset(
    {
        "heading_open",
        "hr",
        "paragraph_open",
        "blockquote_open",
        "bullet_list_open",
        "ordered_list_open",
        "table_open",
        "fence",
        "code_block",
    }
)


def top_level_groups(tokens: Iterable[Token]) -> Iterator[list[Token]]:
    """Split a token stream into one group per top-level block (its open to its close)."""
    group: list[Token] = []
    for token in tokens:
        group.append(token)
        if token.level == 0 and token.nesting <= 0:
            yield group
            group = []
    if group:
        yield group


def _token_key(token: Token) -> tuple[Any, ...]:
    children = tuple(_token_key(child) for child in token.children or ())
    return (
        token.type,
        token.tag,
        token.nesting,
        token.level,
        token.content,
        token.markup,
        token.info,
        token.hidden,
        tuple(sorted(token.attrs.items())),
        children,
    )


def signature(group: Sequence[Token]) -> tuple[Any, ...]:
    """Everything about a block's tokens that shows on screen; line numbers are left out."""
    return tuple(_token_key(token) for token in group)


class ReplyMarkdown(Markdown):
    """Textual's Markdown, able to settle a streamed document against its full text.

    While a reply streams, `Markdown.append` re-parses only the document's tail, so what is
    on screen can differ from a parse of the whole text (a reference link defined further
    down, a control sequence split across two writes). `settle` parses the full text once
    and makes the screen show exactly what `Markdown.update` would, but keeps every block
    whose tokens are unchanged instead of building all of them again: rebuilding a long
    reply's hundreds of widgets costs more than streaming it did.

    The last block of a rendered reply (marked `-last`) loses its bottom margin, and only
    that: the reply ends on its text, not on a blank line. It is set on the block itself,
    because a `:last-child` rule would restyle every block each time a streamed one is
    added, and a CSS `margin-bottom` rule would zero the other sides too.
    """

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

    def _parse_markdown(self, tokens: Iterable[Token]) -> Iterable[MarkdownBlock]:
        parse = super()._parse_markdown
        for group in top_level_groups(tokens):
            # The block keeps its opening token (and takes the new one when a stream
            # updates it in place), so the signature travels with what is on screen.
            group[0].meta[SIGNATURE] = signature(group)
            yield from parse(group)

    async def settle(self, markdown: str) -> None:
        """Show `markdown` exactly as a full render would, rebuilding only changed blocks."""
        self._theme = self.app.theme
        parser = MarkdownIt("gfm-like") if self._parser_factory is None else self._parser_factory()
        async with self.lock:
            groups = list(top_level_groups(parser.parse(markdown)))
            existing = [child for child in self.children if isinstance(child, MarkdownBlock)]
            kept = 0
            first_new = len(groups)
            for index, group in enumerate(groups):
                if group[0].type not in BLOCK_TOKENS:
                    continue
                if kept < len(existing) and _shows(existing[kept], group):
                    if group[0].map is not None:
                        existing[kept].source_range = (group[0].map[0], group[0].map[1])
                    kept += 1
                    continue
                first_new = index
                break
            rebuilt = [token for group in groups[first_new:] for token in group]
            new_blocks = list(self._parse_markdown(rebuilt))
            stale = existing[kept:]
            with self.app.batch_update():
                if stale:
                    await self.remove_children(stale)
                if new_blocks:
                    await self.mount_all(new_blocks)
        self._mark_last()
        self._markdown = markdown
        self._table_of_contents = None
        lines = markdown.splitlines()
        self._last_parsed_line = len(lines) - (1 if lines and lines[-1] else 0)
        self.post_message(
            Markdown.TableOfContentsUpdated(self, self.table_of_contents).set_sender(self)
        )


def _shows(block: MarkdownBlock, group: Sequence[Token]) -> bool:
    """Whether `block` already shows what `group` would render to."""
    if group[0].type == "table_open":
        return False  # a streamed table grows its rows in place and keeps its first token
    built_from = block._token.meta.get(SIGNATURE)
    return built_from is not None and built_from == signature(group)
