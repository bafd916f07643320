"""The code blocks of a message, as the reply's Markdown draws them (fenced or indented)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """One code block: its language (the fence's first word, "" if none) and its code."""

    language: str
    code: str

    @property
    def lines(self) -> int:
        return len(self.code.rstrip("\n").split("\n"))

    @property
    def first_line(self) -> str:
        """Its first line that holds something, to tell it from the others."""
        return next((line.strip() for line in self.code.splitlines() if line.strip()), "")


def code_blocks(text: str) -> list[CodeBlock]:
    """The code blocks of `text`, in order, read by the parser the reply is drawn with (a
    fence inside a list item counts; a fence shown as text inside another does not)."""
    from ctxchat.tui.widgets.reply_markdown import reply_parser

    return [
        CodeBlock(token.info.strip().split(" ")[0] if token.info.strip() else "", token.content)
        for token in reply_parser().parse(text)
        if token.type in ("fence", "code_block")
    ]
