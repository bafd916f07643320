"""The config's theme and [keys] against what the app offers: config-error lines, never fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.config.names_check import check_names, key_problem

THEMES = {"textual-dark", "nord", "ctxchat-dark"}
BINDINGS = {"mode.toggle", "memory.focus", "app.quit"}


@pytest.mark.parametrize(
    ("keys", "problem"),
    [
        ("ctrl+o", None),
        ("f5,ctrl+s", None),
        ("ctrl+shift+tab", None),
        ("ctrl+plus", None),
        ("question_mark", None),
        ("+", None),
        ("ctrl+", '"ctrl+" ends without a key after "+"'),
        ("crtl+o", '"crtl" in "crtl+o" is not a modifier (ctrl, shift, alt, meta, super)'),
        ("ctrl+escpe", '"escpe" in "ctrl+escpe" is not a key; did you mean "escape"?'),
        ("f25", '"f25" in "f25" is not a key; did you mean "f5"?'),
        ("f1,", '"" ends without a key after "+"'),
    ],
)
def test_key_lists_textual_cannot_bind_are_named(keys: str, problem: str | None) -> None:
    assert key_problem(keys) == problem


def test_problems_name_the_file_line_and_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'theme = "nrod"\n[keys]\n"mode.toggle" = "f9"\n"mode.toggel" = "f1"\n"app.quit" = "ctrl+"\n'
    )
    problems = check_names(
        "nrod",
        {"mode.toggle": "f9", "mode.toggel": "f1", "app.quit": "ctrl+"},
        config,
        themes=THEMES,
        bindings=BINDINGS,
    )
    assert problems.lines == [
        f"{config}:1: theme: no theme called 'nrod'; did you mean \"nord\"?",
        f'{config}:4: keys."mode.toggel": no key binding has this id; did you mean "mode.toggle"?',
        f'{config}:5: keys."app.quit": "ctrl+" ends without a key after "+"',
    ]
    assert problems.bad_theme
    assert problems.bad_bindings == {"mode.toggel", "app.quit"}


def test_a_known_theme_and_good_keys_have_no_problems() -> None:
    problems = check_names("nord", {"mode.toggle": "f9"}, None, themes=THEMES, bindings=BINDINGS)
    assert (problems.lines, problems.bad_theme, problems.bad_bindings) == ([], False, frozenset())


def test_every_key_name_textual_knows_is_accepted() -> None:
    from textual.keys import KEY_NAME_REPLACEMENTS, Keys

    names = [k.value for k in Keys if "+" not in k.value and k.value.isidentifier()]
    names += list(KEY_NAME_REPLACEMENTS.values())
    assert [name for name in names if key_problem(name) is not None] == []
