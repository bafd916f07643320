"""The config's theme and [keys] against what the app offers: config-error lines, never fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.config.names_check import check_names, key_problem, typing_problem

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


def test_a_typed_key_where_typing_goes_elsewhere_is_named_and_not_applied(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[keys]\n"message.pin" = "p"\n"memory.add" = "ctrl+a,a"\n'
        '"conversations.new" = "n"\n"app.quit" = "q"\n"memory.pin" = "ctrl+p"\n'
        '"inspector.json" = "j"\n"layer.toggle" = "space"\n'
    )
    keymap = {
        "message.pin": "p",
        "memory.add": "ctrl+a,a",
        "conversations.new": "n",
        "app.quit": "q",
        "memory.pin": "ctrl+p",  # a chord: fine
        "inspector.json": "j",  # the inspector lets a bound letter fire
        "layer.toggle": "space",  # a focused layer panel folds on space
    }
    problems = check_names("nord", keymap, config, themes=THEMES, bindings=set(keymap))
    use = "use a ctrl+ or F key"
    assert problems.lines == [
        f'{config}:2: keys."message.pin": "p" would never fire: '
        f"a key typed on the main screen goes to the composer; {use}",
        f'{config}:3: keys."memory.add": "a" would never fire: '
        f"a key typed on the main screen goes to the composer; {use}",
        f'{config}:4: keys."conversations.new": "n" would never fire: '
        f"a key typed in the conversation switcher goes to its search; {use}",
        f'{config}:5: keys."app.quit": "q" would fire instead of being typed, everywhere; {use}',
    ]
    assert problems.bad_bindings == {"message.pin", "memory.add", "conversations.new", "app.quit"}


@pytest.mark.parametrize("key", ["x", "X", "7", "full_stop", "space", "slash", "plus", "é"])
def test_every_printable_key_counts_as_typing(key: str) -> None:
    assert typing_problem("message.pin", key) is not None


@pytest.mark.parametrize("key", ["ctrl+x", "shift+up", "f5", "delete", "escape", "enter", "tab"])
def test_chords_and_named_keys_are_not_typing(key: str) -> None:
    assert typing_problem("message.pin", key) is None
