"""TOML theme files turned into Textual themes, with per-layer and per-kind colours as variables.

A theme file looks like this (every colour is a CSS-style colour Textual can parse)::

    name = "ctxchat-dark"
    dark = true
    primary = "#4C8BE0"          # required; the others fall back to Textual's derivations
    secondary = "#8E6BD8"
    accent = "#D08A2E"
    background = "#16181D"
    surface = "#1E2128"
    panel = "#262A33"
    foreground = "#D8DCE3"
    success = "#4FAF6A"
    warning = "#D9A53A"
    error = "#D65B5B"

    [layers]                     # optional; missing ones use LAYER_VARIABLE_DEFAULTS
    system = "#8E6BD8"
    memory = "#D08A2E"
    summary = "#3B9FB8"
    task = "#C2587A"
    files = "#8F9A3A"
    working = "#4C8BE0"
    input = "#4FAF6A"
    free = "#3A3F4A"

    [kinds]                      # optional, the memory kind badges
    fact = "#4FAF6A"
    constraint = "#D65B5B"
    preference = "#B07CC6"
    hypothesis = "#C9A227"

    [variables]                  # optional, any other Textual theme variable
    footer-key-foreground = "#4C8BE0"
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

import ctxchat

__all__ = [
    "KIND_NAMES",
    "LAYER_NAMES",
    "LAYER_VARIABLE_DEFAULTS",
    "ThemeFileError",
    "describe_problems",
    "kind_variable",
    "layer_variable",
    "load_theme_file",
    "load_themes",
    "shipped_theme_dirs",
    "theme_from_data",
]

LAYER_NAMES = (
    "system",
    "memory",
    "summary",
    "task",
    "files",
    "recall",
    "working",
    "input",
    "free",
)
KIND_NAMES = ("fact", "constraint", "preference", "hypothesis")

# Mid-tone colours that read on dark and light backgrounds alike, so Textual's built-in
# themes (which know nothing of layers) still draw the context side. The App returns these
# from `get_theme_variable_defaults()`; a theme file overrides any of them.
LAYER_VARIABLE_DEFAULTS: dict[str, str] = {
    "layer-system": "#8E6BD8",
    "layer-memory": "#D08A2E",
    "layer-summary": "#3B9FB8",
    "layer-task": "#C2587A",
    "layer-files": "#8F9A3A",
    "layer-recall": "#2FA58F",
    "layer-working": "#4C8BE0",
    "layer-input": "#4FAF6A",
    "layer-free": "#7A808C",
    "kind-fact": "#3E9E5B",
    "kind-constraint": "#C0504D",
    "kind-preference": "#B07CC6",
    "kind-hypothesis": "#C9A227",
}

_COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "background",
    "surface",
    "panel",
    "foreground",
    "success",
    "warning",
    "error",
    "boost",
)
_TOP_LEVEL_KEYS = frozenset({"name", "dark", *_COLOUR_KEYS, "layers", "kinds", "variables"})


def layer_variable(layer: str) -> str:
    """The theme variable holding a layer's colour: `memory` → `$layer-memory`."""
    return f"$layer-{layer}"


def kind_variable(kind: str) -> str:
    """The theme variable holding a memory kind's colour: `fact` → `$kind-fact`."""
    return f"$kind-{kind}"


class ThemeFileError(ValueError):
    """A theme file that cannot be used; the message says what is wrong in it."""


def _colour(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ThemeFileError(f"{where} must be a colour string, got {value!r}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{where} is {value!r}, which is not a colour") from None
    return value


def _colour_table(data: Mapping[str, Any], table: str, names: Iterable[str]) -> dict[str, str]:
    section = data.get(table, {})
    if not isinstance(section, dict):
        raise ThemeFileError(f"[{table}] must be a table")
    allowed = tuple(names)
    unknown = sorted(set(section) - set(allowed))
    if unknown:
        raise ThemeFileError(
            f"unknown key {unknown[0]!r} in [{table}] (expected one of {', '.join(allowed)})"
        )
    prefix = table.removesuffix("s")
    return {
        f"{prefix}-{name}": _colour(value, f"{table}.{name}") for name, value in section.items()
    }


def theme_from_data(data: Mapping[str, Any]) -> Theme:
    """A Textual theme from a parsed theme file; raises ThemeFileError saying what is wrong."""
    unknown = sorted(set(data) - _TOP_LEVEL_KEYS)
    if unknown:
        raise ThemeFileError(f"unknown key {unknown[0]!r}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFileError("'name' is missing or empty")
    if "primary" not in data:
        raise ThemeFileError("'primary' colour is missing")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeFileError(f"'dark' must be true or false, got {dark!r}")
    colours = {key: _colour(data[key], key) for key in _COLOUR_KEYS if key in data}
    extra = data.get("variables", {})
    if not isinstance(extra, dict):
        raise ThemeFileError("[variables] must be a table")
    for key, value in extra.items():
        if not isinstance(value, str):
            raise ThemeFileError(f"variables.{key} must be a string, got {value!r}")
    variables = {
        **extra,
        **_colour_table(data, "layers", LAYER_NAMES),
        **_colour_table(data, "kinds", KIND_NAMES),
    }
    return Theme(
        name=name.strip(),
        dark=dark,
        variables=variables,
        primary=colours["primary"],
        secondary=colours.get("secondary"),
        accent=colours.get("accent"),
        background=colours.get("background"),
        surface=colours.get("surface"),
        panel=colours.get("panel"),
        foreground=colours.get("foreground"),
        success=colours.get("success"),
        warning=colours.get("warning"),
        error=colours.get("error"),
        boost=colours.get("boost"),
    )


def load_theme_file(path: Path) -> Theme:
    """Read one theme file; raises ThemeFileError (without the file name) if it is unusable."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ThemeFileError("not UTF-8 text") from None
    except OSError as exc:
        raise ThemeFileError(f"cannot be read: {exc.strerror or exc}") from None
    return theme_from_data(data)


def load_themes(dirs: Iterable[Path]) -> tuple[list[Theme], list[str]]:
    """Every `*.toml` theme in `dirs` (missing folders are skipped), and one problem per bad file.

    Files are read in name order, folder by folder; a theme whose name comes again later
    (a user's copy of a shipped theme) replaces the earlier one. Each problem names the file.
    """
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in dirs:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                problems.append(f"{path}: {exc}")
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems


def describe_problems(problems: list[str]) -> str:
    """All theme problems as one notification text (show it with `markup=False`)."""
    heading = (
        "A theme file could not be loaded:"
        if len(problems) == 1
        else (f"{len(problems)} theme files could not be loaded:")
    )
    return "\n".join([heading, *problems])


def shipped_theme_dirs() -> list[Path]:
    """Where the themes shipped with ctxchat are: package data when installed, else the
    top-level `themes/` folder of a source checkout (the first of these that exists)."""
    package = Path(ctxchat.__file__).resolve().parent
    installed = package / "themes_data"
    checkout = package.parent / "themes"
    if installed.is_dir():
        return [installed]
    # Only a checkout's own folder: an unrelated `themes/` beside an installed package is not ours.
    if checkout.is_dir() and (package.parent / "pyproject.toml").is_file():
        return [checkout]
    return []


def theme_names(user_themes_dir: Path) -> set[str]:
    """Every theme the app can show: Textual's own, the shipped files and the user's files."""
    from textual.theme import BUILTIN_THEMES

    loaded, _ = load_themes([*shipped_theme_dirs(), user_themes_dir])
    return {*BUILTIN_THEMES, *(theme.name for theme in loaded)}
