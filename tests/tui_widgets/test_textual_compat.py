"""Each private Textual internal `ctxchat/tui/textual_compat/` relies on is still there, as
it was: when Textual changes one, the failure names it."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from markdown_it.token import Token
from textual.content import Content
from textual.dom import DOMNode
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Footer, Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownStream

from ctxchat.tui import textual_compat
from ctxchat.tui.textual_compat import markdown as markdown_compat


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


def changed(internal: str, expected: str) -> str:
    return (
        f"Textual changed {internal} (expected {expected}); "
        "ctxchat/tui/textual_compat/ relies on it"
    )


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
    assert issubclass(block, MarkdownBlock), changed(
        f"textual.widgets._markdown.{name}", "a MarkdownBlock"
    )
    assert block in Markdown.BLOCKS.values() or any(
        issubclass(used, block) for used in Markdown.BLOCKS.values()
    ), changed(f"Markdown.BLOCKS and {name}", f"{name} to be what a block name maps to")


def test_footer_key_is_the_class_the_footer_composes() -> None:
    assert issubclass(textual_compat.FooterKey, Widget), changed(
        "textual.widgets._footer.FooterKey", "a Widget"
    )
    assert isinstance(vars(textual_compat.FooterKey).get("compact"), Reactive), changed(
        "FooterKey.compact", "a reactive"
    )


def test_a_block_holds_its_children_text_and_token() -> None:
    token = Token("paragraph_open", "p", 1)
    block = markdown_compat.MarkdownParagraph(Markdown(), token)
    assert isinstance(block._blocks, list), changed("MarkdownBlock._blocks", "a list")
    assert isinstance(block._content, Content), changed("MarkdownBlock._content", "a Content")
    assert block._token is token, changed("MarkdownBlock._token", "the opening token")
    assert markdown_compat.child_blocks(block) is block._blocks
    assert markdown_compat.opening_token(block) is token


def test_component_classes_are_inherited_by_a_class_flag() -> None:
    assert "inherit_component_classes" in parameters(DOMNode.__init_subclass__), changed(
        "DOMNode.__init_subclass__", "an inherit_component_classes keyword"
    )
    assert "inherit_component_classes" not in parameters(Widget.__init_subclass__), (
        "Widget.__init_subclass__ now takes inherit_component_classes: pass it as a class "
        "keyword and drop without_own_component_classes from ctxchat/tui/textual_compat/"
    )
    assert MarkdownBlock._inherit_component_classes is True, changed(
        "DOMNode._inherit_component_classes", "a class attribute, True by default"
    )


def test_a_stream_queues_its_fragments_in_a_list() -> None:
    stream = MarkdownStream(Markdown())
    assert stream._pending == [], changed("MarkdownStream._pending", "a list of fragments")
    assert "_pending" in inspect.getsource(MarkdownStream._run), changed(
        "MarkdownStream._run", "to append what _pending holds"
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
        assert getattr(markdown, name, ...) == value, changed(f"Markdown.{name}", repr(value))
    append = inspect.getsource(Markdown.append)
    assert "self._last_parsed_line" in append and "self._parser_factory" in append, changed(
        "Markdown.append", "to parse from _last_parsed_line with _parser_factory's parser"
    )


def test_markdown_builds_blocks_in_parse_markdown() -> None:
    assert parameters(Markdown._parse_markdown) == ["self", "tokens"], changed(
        "Markdown._parse_markdown", "(self, tokens)"
    )
    for method in (Markdown.update, Markdown.append):
        assert "self._parse_markdown(" in inspect.getsource(method), changed(
            f"Markdown.{method.__name__}", "to build its blocks with _parse_markdown"
        )


def test_mount_handlers_are_what_the_composed_blocks_skip() -> None:
    assert parameters(Markdown._on_mount) == ["self", "_"], changed(
        "Markdown._on_mount", "(self, event)"
    )
    assert "self.update(" in inspect.getsource(Markdown._on_mount), changed(
        "Markdown._on_mount", "to render _initial_markdown with update"
    )
    assert parameters(Widget._on_mount) == ["self", "event"], changed(
        "Widget._on_mount", "(self, event)"
    )


def test_arrange_takes_a_size_and_caches_by_it() -> None:
    assert parameters(Widget.arrange) == ["self", "size", "optimal"], changed(
        "Widget.arrange", "(self, size, optimal=False)"
    )
    assert "cache_key = (size," in inspect.getsource(Widget.arrange), changed(
        "Widget.arrange", "an arrangement cached by its size"
    )


def test_the_footer_composes_once_its_bindings_are_ready() -> None:
    assert isinstance(vars(Footer).get("_bindings_ready"), Reactive), changed(
        "Footer._bindings_ready", "a reactive"
    )
    assert "self._bindings_ready" in inspect.getsource(Footer.compose), changed(
        "Footer.compose", "to compose no keys until _bindings_ready"
    )


def test_a_data_bound_reactive_is_recorded_in_reactive_connect() -> None:
    key = textual_compat.FooterKey("q", "q", "Quit", "quit")
    assert key._reactive_connect is None, changed("DOMNode._reactive_connect", "None until bound")
    assert textual_compat.follows_compose_parent(key, "compact") is False
    assert "self._reactive_connect[name] = " in inspect.getsource(DOMNode.data_bind), changed(
        "DOMNode.data_bind", "to record each bound reactive by name in _reactive_connect"
    )


def test_the_linux_driver_reads_input_with_the_xterm_parser_it_imports() -> None:
    from textual._xterm_parser import XTermParser
    from textual.drivers import linux_driver

    assert issubclass(vars(linux_driver)["XTermParser"], XTermParser), changed(
        "textual.drivers.linux_driver.XTermParser", "textual._xterm_parser.XTermParser"
    )
    assert "XTermParser(self._debug)" in inspect.getsource(
        linux_driver.LinuxDriver.run_input_thread
    ), changed("LinuxDriver.run_input_thread", "a parser made from the module's XTermParser")
    assert parameters(XTermParser.feed) == ["self", "data"], changed(
        "XTermParser.feed", "(self, data)"
    )
