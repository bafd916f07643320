"""Display-safe text: control sequences neutralised, markup never interpreted."""

import pytest
from rich.text import Text
from textual.content import Content

from ctxchat.tui.text import clean, content, model_name, plain, signed, tokens


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text", "plain text"),
        ("[bold]x[/] [/INST] [@click=app.quit]x[/]", "[bold]x[/] [/INST] [@click=app.quit]x[/]"),
        ("\x1b[31mred\x1b[0m ok", "red ok"),
        ("\x1b[2J\x1b[Hcleared", "cleared"),
        ("\x1b]0;evil title\x07after", "after"),
        ("\x1b]52;c;ZXZpbA==\x1b\\after", "after"),
        ("\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1bPq#0;2;0;0;0\x1b\\done", "done"),
        ("\x1b7saved\x1b8", "saved"),
        # 8-bit controls are never legitimate text: shown, their parameters left inert.
        ("\x9b2Jeight-bit CSI", "\\u009b2Jeight-bit CSI"),
        ("\x9d0;title\x9cafter", "\\u009d0;title\\u009cafter"),
        (
            "nul\x00 bell\x07 backspace\x08 del\x7f",
            "nul\u2400 bell\u2407 backspace\u2408 del\\u007f",
        ),
        ("windows\r\nline\rbreaks", "windows\nline\nbreaks"),
        ("tabs\tand\nnewlines stay", "tabs\tand\nnewlines stay"),
        (
            "trojan \u202eevil\u202c source \u2066x\u2069",
            r"trojan \u202eevil\u202c source \u2066x\u2069",
        ),
        ("truncated \x1b[31", "truncated "),
        ("lone escape \x1b", "lone escape "),
        ("Привет, 世界 🙂", "Привет, 世界 🙂"),
    ],
)
def test_clean(raw: str, shown: str) -> None:
    assert clean(raw) == shown


def test_clean_returns_clean_text_unchanged() -> None:
    text = "nothing to remove here"
    assert clean(text) is text


def test_plain_is_literal_rich_text() -> None:
    text = plain("[bold]not bold[/bold] \x1b[1mX", "italic")
    assert isinstance(text, Text)
    assert text.plain == "[bold]not bold[/bold] X"
    assert text.spans == []
    assert str(text.style) == "italic"


def test_content_is_literal_textual_content() -> None:
    shown = content("[@click=app.quit]x[/] \x1b]0;t\x07", "$accent")
    assert isinstance(shown, Content)
    assert shown.plain == "[@click=app.quit]x[/] "
    assert [span.style for span in shown.spans] == ["$accent"]


def test_numbers() -> None:
    assert tokens(123_904) == "123,904"
    assert [signed(16), signed(-41), signed(0)] == ["+16", "\u221241", "0"]
    assert [signed(1.26, 1), signed(-0.04, 1), signed(-12.5, 1)] == ["+1.3", "0.0", "\u221212.5"]


def test_a_model_loaded_from_a_file_is_shown_by_the_files_name() -> None:
    assert model_name("/root/.cache/gemma/gemma-3-270m-q4_k_m.gguf") == "gemma-3-270m-q4_k_m.gguf"
    assert model_name("./models/qwen2.5-7b.gguf") == "qwen2.5-7b.gguf"
    assert model_name("C:\\models\\phi-3.gguf") == "phi-3.gguf"
    # Names with a slash are names, not paths.
    assert model_name("meta-llama/Llama-3.1-8B-Instruct") == "meta-llama/Llama-3.1-8B-Instruct"
    assert model_name("gpt-4o") == "gpt-4o"
