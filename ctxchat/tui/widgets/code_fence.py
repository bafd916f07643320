"""A reply's code block: its own background, and its language in a small label above the code."""

from __future__ import annotations

from contextlib import suppress

from textual.app import ComposeResult
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import Static
from textual.widgets.markdown import MarkdownFence


def fence_language(info: str) -> str:
    """The language a fence names: the first word of its info string ("" when none)."""
    words = info.split(maxsplit=1)
    return words[0] if words else ""


class CodeFence(MarkdownFence):
    """Textual's fence on a background of its own, with the language it is written in.

    Textual's fence is drawn on `black 10%` (`white 30%` in light themes), which on the
    shipped themes is within a shade of the conversation's background, and the same colour
    once a terminal of 256 colours rounds it. `$foreground 10%` stands apart in both, in
    every shipped theme (`tests/tui_widgets/test_widget_code_fence.py` measures it).

    The language label takes the row of the code's top padding, so a labelled block is as
    tall as an unlabelled one. The label follows the fence's info string as a stream grows
    it ("```py" then "thon"): Textual hands an updated fence its new text through
    `set_content`, after it has taken the new language.
    """

    DEFAULT_CSS = """
    CodeFence {
        background: $foreground 10%;
        &:light {
            background: $foreground 10%;
        }
        & > .code-fence--language {
            display: none;
            width: 1fr;
            height: auto;
            padding: 0 1;
            text-align: right;
            color: $text-muted;
            text-style: italic;
        }
        &.-labelled > .code-fence--language {
            display: block;
        }
        &.-labelled > Label {
            padding: 0 2 1 2;
        }
    }
    CodeFence:ansi {
        background: transparent;
        &.-labelled > Label {
            padding: 0 0 1 0;
        }
    }
    """

    @property
    def language(self) -> str:
        """The language the fence names ("python" for ```python), "" when it names none."""
        return fence_language(self.lexer)

    def compose(self) -> ComposeResult:
        language = self.language
        self.set_class(bool(language), "-labelled")
        yield Static(Content(language), classes="code-fence--language")
        yield from super().compose()

    def set_content(self, content: Content) -> None:
        super().set_content(content)
        language = self.language
        self.set_class(bool(language), "-labelled")
        with suppress(NoMatches):  # not composed yet: `compose` shows the language
            self.query_one(".code-fence--language", Static).update(Content(language))
