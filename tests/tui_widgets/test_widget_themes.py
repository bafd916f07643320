"""Theme files become Textual themes; broken files are reported by name; layer colours always exist."""

from pathlib import Path

import pytest
from rich.color import Color as RichColor
from textual.color import Color

from ctxchat.tui.themes import (
    LAYER_VARIABLE_DEFAULTS,
    describe_problems,
    load_themes,
    shipped_theme_dirs,
)
from ctxchat.tui.widgets.budget_bar import BudgetBar
from ctxchat.tui.widgets.layer_panel import ContextPanels

from .widget_hosts import HostApp, make_plan, rendered

GOOD = """
name = "mine"
dark = false
primary = "#112233"
background = "#FAFAFA"

[layers]
memory = "#AA0000"

[kinds]
fact = "rgb(0, 128, 0)"

[variables]
footer-key-foreground = "#112233"
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_theme_file_becomes_a_textual_theme(tmp_path: Path) -> None:
    write(tmp_path, "mine.toml", GOOD)
    themes, problems = load_themes([tmp_path])
    assert problems == []
    [theme] = themes
    assert (theme.name, theme.dark, theme.primary, theme.background) == (
        "mine",
        False,
        "#112233",
        "#FAFAFA",
    )
    assert theme.variables == {
        "footer-key-foreground": "#112233",
        "layer-memory": "#AA0000",
        "kind-fact": "rgb(0, 128, 0)",
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('name = "x"\nprimary = ', "not valid TOML: "),
        ('primary = "#fff"', "'name' is missing or empty"),
        ('name = "x"', "'primary' colour is missing"),
        ('name = "x"\nprimary = "blurple-ish"', "primary is 'blurple-ish', which is not a colour"),
        ('name = "x"\nprimary = 12', "primary must be a colour string, got 12"),
        ('name = "x"\nprimary = "#fff"\ndark = "yes"', "'dark' must be true or false"),
        ('name = "x"\nprimay = "#fff"', "unknown key 'primay'"),
        (
            'name = "x"\nprimary = "#fff"\n[layers]\nmemroy = "#fff"',
            "unknown key 'memroy' in [layers]",
        ),
        ('name = "x"\nprimary = "#fff"\n[kinds]\nfact = "nope"', "kinds.fact is 'nope'"),
        ('name = "x"\nprimary = "#fff"\nlayers = 3', "[layers] must be a table"),
    ],
)
def test_a_broken_theme_file_gives_one_problem_naming_it(
    tmp_path: Path, text: str, problem: str
) -> None:
    write(tmp_path, "a-good.toml", GOOD)
    broken = write(tmp_path, "broken.toml", text)
    themes, problems = load_themes([tmp_path])
    assert [theme.name for theme in themes] == ["mine"]
    assert len(problems) == 1
    assert problems[0].startswith(f"{broken}: ")
    assert problem in problems[0]


def test_unreadable_and_non_utf8_files_are_problems_too(tmp_path: Path) -> None:
    (tmp_path / "latin1.toml").write_bytes(b'name = "caf\xe9"\nprimary = "#fff"\n')
    (tmp_path / "folder.toml").mkdir()
    themes, problems = load_themes([tmp_path])
    assert themes == []
    assert problems == [
        f"{tmp_path / 'folder.toml'}: cannot be read: Is a directory",
        f"{tmp_path / 'latin1.toml'}: not UTF-8 text",
    ]
    assert describe_problems(problems).splitlines() == [
        "2 theme files could not be loaded:",
        *problems,
    ]


def test_a_user_theme_replaces_a_shipped_one_of_the_same_name(tmp_path: Path) -> None:
    write(tmp_path / "user", "dark.toml", 'name = "ctxchat-dark"\nprimary = "#ff0000"\n')
    themes, problems = load_themes([*shipped_theme_dirs(), tmp_path / "missing", tmp_path / "user"])
    assert problems == []
    by_name = {theme.name: theme for theme in themes}
    assert by_name["ctxchat-dark"].primary == "#ff0000"


def test_shipped_themes_load_cleanly_with_every_layer_and_kind_colour() -> None:
    [folder] = shipped_theme_dirs()
    themes, problems = load_themes([folder])
    assert problems == []
    assert {theme.name for theme in themes} >= {"ctxchat-dark", "ctxchat-light", "solarized-ctx"}
    for theme in themes:
        assert set(LAYER_VARIABLE_DEFAULTS) <= set(theme.variables), theme.name


def test_defaults_are_colours() -> None:
    for value in LAYER_VARIABLE_DEFAULTS.values():
        Color.parse(value)


def background_colours(widget: BudgetBar) -> set[RichColor]:
    [bar, *_] = widget.render_lines(widget.region.reset_offset)
    return {segment.style.bgcolor for segment in bar if segment.style and segment.style.bgcolor}


@pytest.mark.parametrize("theme", ["textual-light", "nord", "dracula"])
async def test_built_in_themes_get_the_layer_colours(theme: str) -> None:
    plan = make_plan()
    app = HostApp(lambda: [ContextPanels()], theme=theme)
    async with app.run_test(size=(80, 40)) as pilot:
        app.query_one(ContextPanels).update_plan(plan, window_source="server")
        await pilot.pause()
        assert app.theme == theme
        for name, value in LAYER_VARIABLE_DEFAULTS.items():
            assert app.theme_variables[name] == value
        bar = app.query_one(BudgetBar)
        assert "memory" in rendered(bar)
        memory = Color.parse(LAYER_VARIABLE_DEFAULTS["layer-memory"]).rich_color
        assert memory in background_colours(bar)


async def test_a_theme_file_sets_the_layer_colours_the_bar_draws(tmp_path: Path) -> None:
    write(tmp_path, "mine.toml", GOOD)
    [theme], _ = load_themes([tmp_path])
    plan = make_plan()
    app = HostApp(lambda: [BudgetBar()], theme="textual-dark")
    async with app.run_test(size=(80, 10)) as pilot:
        app.register_theme(theme)
        app.theme = "mine"
        app.query_one(BudgetBar).update_plan(plan, window_source="server")
        await pilot.pause()
        assert app.theme_variables["layer-memory"] == "#AA0000"
        # Not overridden by the file: the default.
        assert app.theme_variables["layer-system"] == LAYER_VARIABLE_DEFAULTS["layer-system"]
        assert Color.parse("#AA0000").rich_color in background_colours(app.query_one(BudgetBar))
