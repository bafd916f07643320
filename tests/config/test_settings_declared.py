"""Every setting is declared once: the reader, the template `config init` writes and the
table in docs/configuration.md all follow from the declaration, and the core's defaults agree
with it."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxchat.config.declare import Declaration, declarations, plain
from ctxchat.config.errors import ConfigError
from ctxchat.config.loader import LoadedSettings, parse_settings
from ctxchat.config.reference import settings_table
from ctxchat.config.report import settings_report
from ctxchat.config.settings import (
    ContextSettings,
    Preset,
    ProviderProfile,
    RecallSettings,
    Settings,
    SummarySettings,
)
from ctxchat.config.template import render_config, starter_settings
from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.assemble import AssemblyOptions
from ctxchat.core.recall import rank_recall
from ctxchat.core.summary import SummaryPolicy

ROOT = Path(__file__).resolve().parents[2]
START, END = "<!-- settings: start -->", "<!-- settings: end -->"


def _values(cls: type, prefix: str = "") -> Iterator[tuple[str, Declaration]]:
    """Every declared value (not a table) with its dotted key; a profile's as `profiles.NAME.`."""
    for item in declarations(cls):
        key = prefix + item.key
        if item.kind == "value":
            yield key, item
        elif item.kind == "section":
            yield from _values(item.of, f"{key}.")
        elif item.kind == "sections":
            yield from _values(item.of, f"{key}.NAME.")


def test_the_configuration_doc_holds_the_current_settings_table() -> None:
    """Stale after a setting changes: `python scripts/settings_table.py` writes it."""
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert START in doc and END in doc
    shown = doc[doc.index(START) + len(START) : doc.index(END)].strip("\n")
    assert shown == settings_table()


def test_the_script_says_whether_the_configuration_doc_is_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "settings_table.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "current\n")


def test_the_table_lists_every_setting_with_its_default_and_help() -> None:
    table = settings_table()
    for key, item in _values(Settings):
        row = next(line for line in table.splitlines() if line.startswith(f"| `{key}` |"))
        default = "required" if item.required else str(plain(item.default)).lower()
        assert default.strip('"') in row.lower(), key
        assert item.declared.help in row, key


def test_the_template_explains_every_setting_above_its_key() -> None:
    lines = render_config(starter_settings()).splitlines()
    comments = "\n".join(line.removeprefix("# ") for line in lines if line.startswith("# "))
    for key, item in _values(Settings):
        name = item.key
        at = next(
            i for i, line in enumerate(lines) if line.removeprefix("# ").startswith(f"{name} = ")
        )
        assert lines[at - 1].startswith("# "), key
        assert " ".join(item.declared.help.split()) in " ".join(comments.split()), key


def _changed(item: Declaration, value: Any) -> Any:
    """A valid value other than `value`, made from the declaration."""
    if item.choices:
        return type(value)(next(c for c in item.choices if c != value))
    if item.type is bool:
        return not value
    if item.type is int:
        # A window must stay larger than the reserve taken from it.
        return value + (4096 if item.name == "context_window" else 3)
    if item.type is float or item.unset_number:
        low = item.declared.ge if item.declared.ge is not None else item.declared.gt or 0
        high = item.declared.le if item.declared.le is not None else low + 1000
        return next(v for v in (low + (high - low) / 4, low + (high - low) / 2) if v != value)
    return f"changed_{item.key}"


def _change_every_setting(values: Any, cls: type, keep: set[str]) -> Any:
    changes: dict[str, Any] = {}
    for item in declarations(cls):
        value = getattr(values, item.name)
        if item.name in keep:
            continue
        if item.kind == "value":
            changes[item.name] = _changed(item, value)
        elif item.kind == "section":
            changes[item.name] = _change_every_setting(value, item.of, keep)
    return dataclasses.replace(values, **changes)


def test_every_declared_setting_changed_survives_the_template_and_the_reader() -> None:
    """A setting the template or the reader does not handle fails here, whatever its type."""
    # Settings that name a profile, and the key that excludes api_key_env, stay as they are.
    keep = {"default_profile", "profile", "api_key", "base_url"}
    profile = _change_every_setting(starter_settings().profile(), ProviderProfile, keep)
    preset = _change_every_setting(Preset(name="careful"), Preset, keep)
    settings = _change_every_setting(
        Settings(
            profiles={profile.name: profile},
            default_profile=profile.name,
            presets={preset.name: preset},
        ),
        Settings,
        keep,
    )
    assert preset != Preset(name="careful")
    assert settings.context != ContextSettings()
    assert settings.recall != RecallSettings()
    assert settings.summary != SummarySettings()
    assert parse_settings(render_config(settings), {}).settings == settings


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[recall]\nshare = 1.5\n", "recall.share: expected a number from 0 to 1, got 1.5"),
        (
            "[recall]\nlong_shift = -0.1\n",
            "recall.long_shift: expected a number from 0 to 1, got -0.1",
        ),
        ("[recall]\nhalf_life = 0\n", "recall.half_life: expected a positive number, got 0"),
        ("[recall]\nlimit = -1\n", "recall.limit: expected a whole number ≥ 0, got -1"),
        ("[recall]\nsemantic = 1\n", "recall.semantic: expected true or false, got 1"),
        (
            "[memory]\nhypothesis_turns = -1\n",
            "memory.hypothesis_turns: expected a whole number ≥ 0, got -1",
        ),
        (
            "[model]\nfirst_chunk_timeout = -5\n",
            "model.first_chunk_timeout: expected seconds, above 0, got -5",
        ),
        ("[summary]\nmodel = 3\n", "summary.model: expected a model name, got 3"),
        (
            '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\napi_key = 12345\n',
            "profiles.a.api_key: expected a string, got a number",
        ),
    ],
    ids=[
        "share",
        "long-shift",
        "half-life",
        "limit",
        "bool",
        "hypothesis-turns",
        "timeout",
        "optional-string",
        "secret",
    ],
)
def test_a_value_outside_its_declared_bounds_names_the_line_key_and_bounds(
    text: str, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(text, {}, path=Path("config.toml"))
    line = text.count("\n")
    assert str(caught.value) == f"config.toml:{line}: {message}"


def test_the_cores_defaults_are_the_declared_ones() -> None:
    assert ContextSettings().assembly_options() == AssemblyOptions()
    assert SummarySettings().policy() == SummaryPolicy()
    assert RecallSettings().policy() == AdaptivePolicy()
    half_life = inspect.signature(rank_recall).parameters["half_life"].default
    assert half_life == RecallSettings().half_life


def test_config_show_reports_every_declared_table_with_its_sources() -> None:
    report = settings_report(LoadedSettings(Settings(), None), {})
    settings = report["settings"]
    assert isinstance(settings, dict)
    assert settings["memory"] == {"hypothesis_turns": 30, "dates": False}
    sources = report["sources"]
    assert isinstance(sources, dict)
    for key, _ in _values(Settings):
        # Tables by name (profiles, prices) have no keys of their own until one is given.
        if ".NAME." not in key:
            assert sources[key] == "default", key
