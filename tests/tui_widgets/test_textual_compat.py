"""Each private Textual internal `ctxchat/tui/textual_compat/` relies on is still there, as
it was: when Textual changes one, the failure names it, says what ctxchat uses it for, and
what to do about it."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it.token import Token
from textual.app import App
from textual.content import Content
from textual.dom import DOMNode
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Markdown, Static, TextArea
from textual.widgets.markdown import MarkdownBlock

from ctxchat.tui import textual_compat
from ctxchat.tui.textual_compat import input_bytes as input_compat
from ctxchat.tui.textual_compat import markdown as markdown_compat
from ctxchat.tui.textual_compat import output as output_compat
from ctxchat.tui.textual_compat import parsed_css as parsed_css_compat
from ctxchat.tui.textual_compat import paste as paste_compat


@dataclass(frozen=True)
class Hook:
    """A use of Textual internals: where, what it buys (measured), what to do if it breaks."""

    where: str
    buys: str
    todo: str


DRAWN_LISTS = Hook(
    "ctxchat/tui/widgets/reply_markdown.py: DrawnList",
    "a list of one-paragraph items drawn by one widget, not four an item; without it a "
    "4,000-chunk reply streamed 1.8-2.5x the bare client instead of 1.2-2.0x, and at a "
    "model's speed a delta showed a median 0.20 s after it arrived instead of 0.14-0.16 s "
    "(bench/ui.py, run back to back)",
    "remove the two DrawnList entries from ReplyMarkdown.BLOCKS (Textual's lists then draw "
    "them) and measure with `bench/ui.py --only stream`; or port DrawnList to the new "
    "internals",
)
REPLY_STYLES = Hook(
    "ctxchat/tui/widgets/reply_markdown.py: _styled_by_the_reply",
    "inline styles resolved once a reply, not on each block Textual mounts; without it a "
    "4,000-chunk reply at full speed finished 1.7-1.9x the bare client instead of 1.1x "
    "(bench/ui.py, run back to back twice)",
    "if Widget.__init_subclass__ now takes inherit_component_classes, pass it as a class "
    "keyword and drop without_own_component_classes; else make _styled_by_the_reply return "
    "the block unchanged and measure with `bench/ui.py --only stream`",
)
COMPOSED_REPLY = Hook(
    "ctxchat/tui/widgets/reply_markdown.py: ReplyMarkdown.compose",
    "a stored reply's blocks built as it composes, so the frame that shows a turn shows its "
    "text; Textual parses in a thread once mounted: opening a 10,000-message conversation "
    "showed its newest turn 2.00 s after start instead of 1.61 s (bench/ui.py --only open)",
    "set COMPOSED_PARSE to -1 in reply_markdown.py (Textual then parses every reply on "
    "mount) and drop HookedMarkdown's compose hooks; or port them",
)
ARRANGEMENT = Hook(
    "ctxchat/tui/textual_compat/markdown.py: ArrangedByWidth",
    "one arrangement of a reply's blocks per width while it streams and grows",
    "drop ArrangedByWidth from ReplyMarkdown's bases and from _styled_copy",
)
FOOTER_AT_ONCE = Hook(
    "ctxchat/tui/widgets/footer.py: KeyFooter(keys_at_first_frame=True)",
    "the footer's keys drawn in the first frame; Textual's footer draws them after the first "
    "binding change: the first full frame came at 1.81 s instead of 0.93 s (bench/ui.py "
    "--only paint)",
    "replace KeyFooter with textual.widgets.Footer in ctxchat/tui/conversation_screen.py and the screens",
)
WHOLE_PASTES = Hook(
    "ctxchat/tui/textual_compat/paste.py: keep_pastes_whole",
    "a bracketed paste holding escape characters (coloured terminal output, a log) arriving "
    "as one paste; Textual's parser turned what followed an escape into key presses, and a "
    "pasted line break into Enter, which sent a half-pasted draft "
    "(tests/cli/test_cli_paste.py)",
    "if Textual's parser keeps escapes inside a paste, drop keep_pastes_whole from "
    "ctxchat/tui/app.py: run_app and the paste module; else port PasteKeepingParser",
)
UNDECODABLE_INPUT = Hook(
    "ctxchat/tui/textual_compat/input_bytes.py: replace_undecodable_input",
    "bytes typed or pasted that are not UTF-8 arriving as U+FFFD; Textual's strict decoder "
    "raised in its input thread, which ended the app (tests/cli/test_cli_bad_input.py)",
    "if Textual's driver no longer fails on such bytes, drop replace_undecodable_input from "
    "ctxchat/cli/launch.py and the module; else replace the decoder it makes",
)
GONE_TERMINAL = Hook(
    "ctxchat/tui/textual_compat/output.py: drop_output_to_a_gone_terminal",
    "an app whose terminal went away while a reply streamed ending as quitting does; "
    "Textual's writing thread ended at the first failed write and the app froze on a later "
    "one, orphaned (tests/tui_widgets/test_gone_terminal_output.py, tests/cli/test_cli_hangup.py)",
    "if Textual's writing thread survives a failed write, drop drop_output_to_a_gone_terminal "
    "from ctxchat/tui/app.py: run_app and the output module; else port DroppingWriterThread",
)
PARSED_CSS = Hook(
    "ctxchat/tui/textual_compat/parsed_css.py: keep_parsed_css",
    "the app's stylesheets read back from the cache directory instead of parsed on each "
    "start: 13-22 ms of parsing before the first frame, about 20 ms of the start's wall "
    "time (median of 6 starts each way, tests/app/test_app_parsed_css.py checks the app "
    "looks the same)",
    "drop keep_parsed_css from ctxchat/tui/app.py: run_app and the module (Textual then "
    "parses on every start); or port ParsedCss.parse to the new parse",
)
FOOTER_PATCH = Hook(
    "ctxchat/tui/widgets/footer.py: KeyFooter._patch",
    "a reply's start and end add or remove one key instead of rebuilding the footer",
    "make KeyFooter._patch return False (a full rebuild, Textual's way) or drop KeyFooter",
)


def changed(hook: Hook, internal: str, expected: str) -> str:
    return (
        f"Textual changed {internal} (expected {expected}). ctxchat uses it in {hook.where}, "
        f"for {hook.buys}. What to do: {hook.todo}."
    )


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


@pytest.mark.parametrize(
    "name",
    [
        "MarkdownBulletList",
        "MarkdownList",
        "MarkdownListItem",
        "MarkdownOrderedList",
        "MarkdownParagraph",
    ],
)
def test_the_unexported_block_classes_are_textuals_blocks(name: str) -> None:
    block = getattr(markdown_compat, name)
    internal = f"textual.widgets._markdown.{name}"
    assert issubclass(block, MarkdownBlock), changed(DRAWN_LISTS, internal, "a MarkdownBlock")
    assert block in Markdown.BLOCKS.values() or any(
        issubclass(used, block) for used in Markdown.BLOCKS.values()
    ), changed(DRAWN_LISTS, f"Markdown.BLOCKS and {name}", f"{name} to be a block it maps to")


def test_a_block_holds_its_children_and_its_text() -> None:
    block = markdown_compat.MarkdownParagraph(Markdown(), Token("paragraph_open", "p", 1))
    assert isinstance(block._blocks, list), changed(DRAWN_LISTS, "MarkdownBlock._blocks", "a list")
    assert isinstance(block._content, Content), changed(
        DRAWN_LISTS, "MarkdownBlock._content", "a Content"
    )
    assert markdown_compat.child_blocks(block) is block._blocks
    assert markdown_compat.block_text(block) is block._content


def test_component_classes_are_inherited_by_a_class_flag() -> None:
    assert "inherit_component_classes" in parameters(DOMNode.__init_subclass__), changed(
        REPLY_STYLES, "DOMNode.__init_subclass__", "an inherit_component_classes keyword"
    )
    assert "inherit_component_classes" not in parameters(Widget.__init_subclass__), changed(
        REPLY_STYLES, "Widget.__init_subclass__", "no inherit_component_classes keyword"
    )
    assert MarkdownBlock._inherit_component_classes is True, changed(
        REPLY_STYLES, "DOMNode._inherit_component_classes", "a class attribute, True by default"
    )


def test_markdown_keeps_its_document_in_these_attributes() -> None:
    markdown = Markdown("# text")
    expected = {
        "_initial_markdown": "# text",
        "_markdown": "",
        "_parser_factory": None,
        "_table_of_contents": None,
        "_last_parsed_line": 0,
        "_theme": "",
    }
    for name, value in expected.items():
        assert getattr(markdown, name, ...) == value, changed(
            COMPOSED_REPLY, f"Markdown.{name}", repr(value)
        )
    append = inspect.getsource(Markdown.append)
    assert "self._last_parsed_line" in append and "self._parser_factory" in append, changed(
        COMPOSED_REPLY,
        "Markdown.append",
        "to parse from _last_parsed_line with _parser_factory's parser",
    )


def test_markdown_builds_blocks_in_parse_markdown() -> None:
    assert parameters(Markdown._parse_markdown) == ["self", "tokens"], changed(
        COMPOSED_REPLY, "Markdown._parse_markdown", "(self, tokens)"
    )
    assert "self._parse_markdown(" in inspect.getsource(Markdown.update), changed(
        COMPOSED_REPLY, "Markdown.update", "to build its blocks with _parse_markdown"
    )


def test_mount_handlers_are_what_the_composed_blocks_skip() -> None:
    assert parameters(Markdown._on_mount) == ["self", "_"], changed(
        COMPOSED_REPLY, "Markdown._on_mount", "(self, event)"
    )
    assert "self.update(" in inspect.getsource(Markdown._on_mount), changed(
        COMPOSED_REPLY, "Markdown._on_mount", "to render _initial_markdown with update"
    )
    assert parameters(Widget._on_mount) == ["self", "event"], changed(
        COMPOSED_REPLY, "Widget._on_mount", "(self, event)"
    )


def test_arrange_takes_a_size_and_caches_by_it() -> None:
    assert parameters(Widget.arrange) == ["self", "size", "optimal"], changed(
        ARRANGEMENT, "Widget.arrange", "(self, size, optimal=False)"
    )
    assert "cache_key = (size," in inspect.getsource(Widget.arrange), changed(
        ARRANGEMENT, "Widget.arrange", "an arrangement cached by its size"
    )


def test_the_footer_composes_once_its_bindings_are_ready() -> None:
    assert isinstance(vars(Footer).get("_bindings_ready"), Reactive), changed(
        FOOTER_AT_ONCE, "Footer._bindings_ready", "a reactive"
    )
    assert "self._bindings_ready" in inspect.getsource(Footer.compose), changed(
        FOOTER_AT_ONCE, "Footer.compose", "to compose no keys until _bindings_ready"
    )


def test_footer_key_is_the_class_the_footer_composes() -> None:
    internal = "textual.widgets._footer.FooterKey"
    assert issubclass(textual_compat.FooterKey, Widget), changed(FOOTER_PATCH, internal, "a Widget")
    assert "FooterKey(" in inspect.getsource(Footer.compose), changed(
        FOOTER_PATCH, "Footer.compose", f"to compose a {internal} per key"
    )


def test_the_linux_driver_reads_input_with_the_xterm_parser_it_imports() -> None:
    from textual._xterm_parser import XTermParser
    from textual.drivers import linux_driver

    assert issubclass(vars(linux_driver)["XTermParser"], XTermParser), changed(
        WHOLE_PASTES,
        "textual.drivers.linux_driver.XTermParser",
        "textual._xterm_parser.XTermParser",
    )
    assert "XTermParser(self._debug)" in inspect.getsource(
        linux_driver.LinuxDriver.run_input_thread
    ), changed(
        WHOLE_PASTES,
        "LinuxDriver.run_input_thread",
        "a parser made from the module's XTermParser",
    )
    assert parameters(XTermParser.feed) == ["self", "data"], changed(
        WHOLE_PASTES, "XTermParser.feed", "(self, data)"
    )


def test_the_linux_driver_decodes_input_with_the_decoder_factory_it_imports() -> None:
    from textual.drivers import linux_driver

    assert callable(vars(linux_driver).get("getincrementaldecoder")), changed(
        UNDECODABLE_INPUT,
        "textual.drivers.linux_driver.getincrementaldecoder",
        "codecs.getincrementaldecoder, imported by name",
    )
    assert 'getincrementaldecoder("utf-8")()' in inspect.getsource(
        linux_driver.LinuxDriver.run_input_thread
    ), changed(
        UNDECODABLE_INPUT,
        "LinuxDriver.run_input_thread",
        "a decoder made from the module's getincrementaldecoder",
    )


def test_the_linux_driver_writes_through_the_writer_thread_it_imports() -> None:
    from textual.drivers import linux_driver
    from textual.drivers._writer_thread import WriterThread

    assert issubclass(vars(linux_driver)["WriterThread"], WriterThread), changed(
        GONE_TERMINAL,
        "textual.drivers.linux_driver.WriterThread",
        "textual.drivers._writer_thread.WriterThread",
    )
    assert "WriterThread(self._file)" in inspect.getsource(
        linux_driver.LinuxDriver.start_application_mode
    ), changed(
        GONE_TERMINAL,
        "LinuxDriver.start_application_mode",
        "a writing thread made from the module's WriterThread",
    )
    source = inspect.getsource(WriterThread)
    assert all(name in source for name in ("self._queue", "self._file", "def run(self)")), changed(
        GONE_TERMINAL, "WriterThread", "a thread emptying self._queue into self._file"
    )


def test_stylesheets_parse_through_the_module_level_parse() -> None:
    from textual.css import parse as parse_module
    from textual.css import stylesheet as stylesheet_module
    from textual.css.stylesheet import Stylesheet

    used = vars(stylesheet_module).get("parse")
    assert used is parse_module.parse or isinstance(
        getattr(used, "__self__", None), parsed_css_compat.ParsedCss
    ), changed(PARSED_CSS, "textual.css.stylesheet.parse", "textual.css.parse.parse")
    assert parameters(parse_module.parse) == [
        "scope",
        "css",
        "read_from",
        "variables",
        "variable_tokens",
        "is_default_rules",
        "tie_breaker",
    ], changed(PARSED_CSS, "textual.css.parse.parse", "(scope, css, read_from, variables, …)")
    source = inspect.getsource(Stylesheet._parse_rules)
    assert "parse(" in source and "variable_tokens=self._variable_tokens" in source, changed(
        PARSED_CSS,
        "Stylesheet._parse_rules",
        "to parse each source with the module's parse and the stylesheet's variable tokens",
    )


def test_every_hook_in_the_quarantine_is_checked_here() -> None:
    """A new use of an internal goes in textual_compat's `__all__` and gets a test above."""
    assert sorted(textual_compat.__all__) == [
        "FooterKey",
        "set_footer_bindings_ready",
    ]
    assert sorted(markdown_compat.__all__) == [
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
    assert sorted(paste_compat.__all__) == ["PasteKeepingParser", "keep_pastes_whole"]
    assert sorted(output_compat.__all__) == [
        "DroppingWriterThread",
        "drop_output_to_a_gone_terminal",
    ]
    assert sorted(input_compat.__all__) == ["replace_undecodable_input"]
    assert sorted(parsed_css_compat.__all__) == ["ParsedCss", "keep_parsed_css"]


# --- the quarantine itself ---------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
QUARANTINE = (
    ROOT / "ctxchat" / "tui" / "textual_compat",
    ROOT / "tests" / "textual_internals.py",
    Path(__file__).resolve(),
)
"""Where Textual's internals may be named: the app's hooks, the tests' one helper, and this
file, which checks each by name."""

TEXTUAL_CLASSES = (App, Screen, Widget, Markdown, MarkdownBlock, Footer, TextArea, Input, Static)


def python_files() -> list[Path]:
    """The project's own Python files (the package, its tests, benchmarks and scripts)."""
    return [
        path
        for part in ("ctxchat", "tests", "bench", "scripts")
        for path in (ROOT / part).rglob("*.py")
    ]


def quarantined(path: Path) -> bool:
    return any(path == place or place in path.parents for place in QUARANTINE)


def textual_private_names() -> set[str]:
    """Textual's private attributes, methods and instance attributes (`_compositor`,
    `_refresh_layout`, …) of the classes ctxchat builds on, less the names ctxchat's own
    classes define outside the quarantine (an item's `_size` is its own)."""
    names = {
        name
        for cls in TEXTUAL_CLASSES
        for klass in cls.__mro__
        if klass.__module__.startswith("textual")
        for name in vars(klass)
        if name.startswith("_") and not name.startswith("__")
    }
    instances: list[object] = [App(), Screen(), Widget(), Markdown(), Footer(), Static(), Input()]
    for instance in instances:
        names |= {
            name for name in vars(instance) if name.startswith("_") and not name.startswith("__")
        }
    own: set[str] = set()
    for path in python_files():
        if quarantined(path):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
    return names - own


# Names of the standard library that Textual happens to use for private attributes too.
STANDARD_LIBRARY = {"os._exit", "sys._getframe"}


def textual_internals_used(path: Path, private: set[str]) -> list[str]:
    """Where `path` names a Textual internal: a private module or a private attribute."""
    found = []
    where = path.relative_to(ROOT)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in private:
            if ast.unparse(node) in STANDARD_LIBRARY:
                continue  # the same name, not Textual's
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            modules += [alias.name for alias in node.names if isinstance(node, ast.Import)]
            for module in modules:
                parts = module.split(".")
                if parts[0] == "textual" and any(part.startswith("_") for part in parts):
                    found.append(f"{where}:{node.lineno}: import {module}")
    return found


def test_textual_internals_are_named_only_in_the_quarantine() -> None:
    """The app goes through `ctxchat/tui/textual_compat/`, the tests through
    `tests/textual_internals.py`: nowhere else names a private module or attribute of
    Textual (a new use goes there, with a check here)."""
    private = textual_private_names()
    assert {"_compositor", "_refresh_layout"} <= private
    used = [
        use
        for path in python_files()
        if not quarantined(path)
        for use in textual_internals_used(path, private)
    ]
    assert used == []


def test_the_tests_read_a_frame_through_the_compositor() -> None:
    """`tests/textual_internals.py: drawn_rows` reads what a screen draws, cell by cell."""
    compositor = vars(Screen())["_compositor"]
    assert callable(getattr(compositor, "render_strips", None)), (
        "Textual changed Screen._compositor.render_strips: the tests compare a reply's cells "
        "with Textual's own Markdown through it (tests/textual_internals.py: drawn_rows); "
        "find the new way to read a frame's cells and change drawn_rows"
    )
