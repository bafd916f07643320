"""Starting the app reads its options without building every command's parser, and reads
them as the whole parser does: the same values, the same answers to a mistake or `--help`."""

from __future__ import annotations

import pytest

from ctxchat.cli.main import build_parser, parse_command_line

STARTS = [
    [],
    ["--conversation", "3"],
    ["--conv", "3", "--theme", "nord"],  # an abbreviated option, as argparse allows
    ["--offline", "--mode", "objective"],
    ["--model", "send", "--base-url", "http://127.0.0.1:9/v1"],  # a command's name as a value
    ["--profile", "p", "--preset", "q", "--data-dir", "/tmp/d", "--config", "/tmp/c.toml"],
    ["--conversation=+7"],
]

OTHERS = [
    ["context", "--json"],
    ["--conversation", "3", "send", "hello"],
    ["memory", "list", "--all"],
]


@pytest.mark.parametrize("argv", STARTS + OTHERS)
def test_the_options_are_read_as_the_whole_parser_reads_them(argv: list[str]) -> None:
    assert vars(parse_command_line(argv)) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["--conversation", "0"],
        ["--conversation"],
        ["--mode", "loud"],
        ["--no-such-option"],
        ["sned"],
        ["--he"],
        ["--"],
    ],
)
def test_help_the_version_and_mistakes_answer_as_the_whole_parser(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as whole:
        build_parser().parse_args(argv)
    expected = capsys.readouterr()
    with pytest.raises(SystemExit) as started:
        parse_command_line(argv)
    assert (started.value.code, capsys.readouterr()) == (whole.value.code, expected)
