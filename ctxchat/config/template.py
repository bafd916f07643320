"""The starting `config.toml` that `ctxchat config init` writes: every setting, each explained.

It is made from the settings' declarations (`ctxchat.config.settings`): each key with its
line of help above it, in the order declared, holding the value of the settings given.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

from ctxchat.config.declare import Declaration, declarations, plain
from ctxchat.config.files import write_private_file
from ctxchat.config.settings import (
    ENGINE_PLACEHOLDER_URL,
    EXAMPLE_PROFILE,
    ProviderProfile,
    Settings,
)

OLD_PROMISE = (
    "# This file is yours: ctxchat reads it and never rewrites it. What the app changes while it\n"
    "# runs (the last mode, a theme picked in the app) goes to its own state file instead\n"
)
PROMISE = (
    "# This file is yours: ctxchat changes nothing in it but the [profiles.<name>] table of a\n"
    "# server added, fixed or removed in the app (F4). What else the app changes while it\n"
    "# runs (the last mode, a theme picked in the app) goes to its own state file instead\n"
)
"""The header's promise as it holds (and as files written before F4 changed profiles say
it: `profile_edit` puts the new one in a file it changes)."""
_HEADER = (
    "# ctxchat configuration.\n"
    + PROMISE
    + "# (`ctxchat config path` shows where). Every key is optional; an unknown key is an error,\n"
    "# so a typo cannot pass unnoticed.\n"
)
_WIDTH = 88


def _dump(values: Mapping[str, object]) -> str:
    import tomli_w  # only needed when writing

    return tomli_w.dumps(values)


def _key(name: str) -> str:
    """A key as TOML writes it (bare, or quoted when it must be)."""
    return _dump({name: True}).removesuffix(" = true\n")


def table_header(*path: str) -> str:
    """A `[table]` header line for the dotted `path`, each part quoted when it must be."""
    return _table(*path)


def _table(*path: str) -> str:
    return "[" + ".".join(_key(part) for part in path) + "]\n"


def _commented(text: str) -> str:
    return "".join(f"# {line}\n" for line in text.splitlines())


def _help(item: Declaration) -> str:
    return "".join(f"# {line}\n" for line in textwrap.wrap(item.declared.help, _WIDTH))


def render_config(settings: Settings) -> str:
    """A commented config file that loads back to exactly `settings`."""
    return _HEADER + "\n" + _fields(settings, Settings, ())


def _fields(values: object, cls: type, at: tuple[str, ...]) -> str:
    """The keys of one table: its values first, then its sub-tables (TOML needs that order)."""
    items = declarations(cls)
    text = "".join(
        _value(values, item) for item in items if item.kind == "value" and _written(values, item)
    )
    for item in items:
        if item.kind != "value":
            text += "\n" + _help(item) + _sub_table(getattr(values, item.name), item, at)
    return text


def _written(values: object, item: Declaration) -> bool:
    """Whether a key is written: an engine profile's base_url is the engine's, not the file's."""
    return not (item.name == "base_url" and getattr(values, item.name) == ENGINE_PLACEHOLDER_URL)


def _value(values: object, item: Declaration) -> str:
    value = getattr(values, item.name)
    example = item.declared.example
    if value in ("", None) and example is not None:
        return _help(item) + _commented(_dump({item.key: example}))
    return _help(item) + _dump({item.key: plain(value)})


def _required(values: object, cls: type) -> dict[str, object]:
    return {item.key: getattr(values, item.name) for item in declarations(cls) if item.required}


def _commented_example(entry: object, cls: type, at: tuple[str, ...]) -> str:
    """An example table, commented out: its required keys alone (a table without them is an
    error), or, when it needs none, each of its keys under its line of help."""
    required = _required(entry, cls)
    if required:
        return _commented(_table(*at) + _dump(required))
    text = _commented(_table(*at))
    for item in declarations(cls):
        value = plain(getattr(entry, item.name))
        if item.kind == "value" and value != "":
            text += _help(item) + _commented(_dump({item.key: value}))
    return text


def _sub_table(value: object, item: Declaration, parent: tuple[str, ...]) -> str:
    at = (*parent, item.key)
    if item.kind == "section":
        return _table(*at) + _fields(value, item.of, at)
    if item.kind == "sections":
        assert isinstance(value, Mapping)
        if not value:
            example = item.declared.example
            assert isinstance(example, Mapping)
            return "".join(
                _commented_example(entry, item.of, (*at, name)) for name, entry in example.items()
            )
        return "\n".join(
            _table(*at, name) + _fields(entry, item.of, (*at, name))
            for name, entry in value.items()
        )
    text = _table(*at)
    table = plain(value)
    assert isinstance(table, dict)
    if table:
        text += _dump(table)
    example = item.declared.example
    if isinstance(example, Mapping):
        unset = {name: keys for name, keys in example.items() if name not in table}
        if unset:
            text += "# Uncomment and edit:\n" + _commented(_dump(unset))
    return text


def starter_settings(profile: ProviderProfile | None = None) -> Settings:
    """The settings a fresh config starts from: defaults and one profile (a local server)."""
    chosen = profile or EXAMPLE_PROFILE
    return Settings(profiles={chosen.name: chosen}, default_profile=chosen.name)


def write_initial_config(
    path: Path,
    *,
    profile: ProviderProfile | None = None,
    settings: Settings | None = None,
    force: bool = False,
) -> Path:
    """Write a commented starting config (mode 0600, new directories 0700) and return its path.

    It holds `settings`, else the defaults with `profile` (else a local llama.cpp server).
    An existing file is never replaced unless `force` (FileExistsError otherwise); the
    caller asks the user first.
    """
    if profile is not None and settings is not None:
        raise ValueError("pass a profile or settings, not both")
    text = render_config(settings if settings is not None else starter_settings(profile))
    write_private_file(path, text, overwrite=force)
    return path
