"""`[presets.NAME]` and a profile's sampling: read, checked as one line each, reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.config.errors import ConfigError, UnknownPreset
from ctxchat.config.loader import LoadedSettings, parse_settings
from ctxchat.config.report import settings_report
from ctxchat.config.settings import Preset, Settings
from ctxchat.config.template import render_config, starter_settings

PRESETS = """\
[profiles.local]
base_url = "http://127.0.0.1:8080/v1"
model = "m"
temperature = 0.6
top_p = 0.8

[presets.precise]
system_prompt = "Answer in one line."
model = "small"
temperature = 0
top_p = 0.5
max_output_tokens = 256

[presets.plain]
"""


def _error(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_settings(text, {}, path=Path("config.toml"))
    return str(caught.value)


def test_presets_and_a_profiles_sampling_are_read() -> None:
    settings = parse_settings(PRESETS, {}).settings
    assert settings.presets == {
        "precise": Preset(
            name="precise",
            system_prompt="Answer in one line.",
            model="small",
            temperature=0.0,
            top_p=0.5,
            max_output_tokens=256,
        ),
        "plain": Preset(name="plain"),
    }
    profile = settings.profile("local")
    assert (profile.temperature, profile.top_p) == (0.6, 0.8)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[presets.hot]\ntemperature = 2.5\n",
            "config.toml:2: presets.hot.temperature: expected a number from 0 to 2, got 2.5",
        ),
        (
            '[presets.hot]\ntemperature = "warm"\n',
            'config.toml:2: presets.hot.temperature: expected a number from 0 to 2, got "warm"',
        ),
        (
            "[presets.wide]\ntop_p = -0.1\n",
            "config.toml:2: presets.wide.top_p: expected a number from 0 to 1, got -0.1",
        ),
        (
            "[presets.long]\nmax_output_tokens = 1.5\n",
            "config.toml:2: presets.long.max_output_tokens: expected a whole number ≥ 0, got 1.5",
        ),
        (
            "[presets.typo]\ntemprature = 1\n",
            'config.toml:2: presets.typo.temprature: unknown key; did you mean "temperature"? '
            "(known here: system_prompt, model, temperature, top_p, max_output_tokens)",
        ),
        (
            "presets = 3\n",
            "config.toml:1: presets: expected a table, like [presets.precise], got 3",
        ),
        (
            "[presets]\nprecise = true\n",
            "config.toml:2: presets.precise: expected a table, like [presets.precise], got true",
        ),
        (
            '[profiles.a]\nbase_url = "http://a/v1"\nmodel = "m"\ntop_p = 7\n',
            "config.toml:4: profiles.a.top_p: expected a number from 0 to 1, got 7",
        ),
    ],
    ids=["high", "string", "negative", "fraction", "typo", "not-table", "entry", "profile"],
)
def test_a_bad_preset_is_one_line_naming_its_key(text: str, message: str) -> None:
    assert _error(text) == message


def test_an_unknown_preset_names_the_configured_ones() -> None:
    settings = parse_settings(PRESETS, {}).settings
    with pytest.raises(UnknownPreset) as caught:
        settings.preset("creative")
    assert str(caught.value) == (
        'no preset named "creative"; the configured presets are "precise", "plain"'
    )
    with pytest.raises(UnknownPreset) as none:
        Settings().preset("creative")
    assert str(none.value) == (
        'no preset named "creative": no presets are configured ([presets.NAME])'
    )


def test_config_show_reports_each_preset_from_the_file() -> None:
    loaded = parse_settings(PRESETS, {})
    report = settings_report(loaded, {})
    settings = report["settings"]
    assert isinstance(settings, dict)
    assert settings["presets"] == {
        "precise": {
            "system_prompt": "Answer in one line.",
            "model": "small",
            "temperature": 0.0,
            "top_p": 0.5,
            "max_output_tokens": 256,
        },
        "plain": {
            "system_prompt": None,
            "model": None,
            "temperature": None,
            "top_p": None,
            "max_output_tokens": 0,
        },
    }
    profiles = settings["profiles"]
    assert isinstance(profiles, dict)
    local = profiles["local"]
    assert isinstance(local, dict)
    assert (local["temperature"], local["top_p"]) == (0.6, 0.8)
    sources = report["sources"]
    assert isinstance(sources, dict)
    assert sources["presets.precise"] == "file"
    default = settings_report(LoadedSettings(Settings(), None), {})["settings"]
    assert isinstance(default, dict) and default["presets"] == {}


def test_a_fresh_config_shows_an_example_preset_commented_out() -> None:
    text = render_config(starter_settings())
    assert "# [presets.precise]\n" in text
    assert "# temperature = 0.2\n" in text
    assert "# max_output_tokens = 1024\n" in text
    assert parse_settings(text, {}).settings.presets == {}


def test_presets_survive_the_template() -> None:
    settings = parse_settings(PRESETS, {}).settings
    assert parse_settings(render_config(settings), {}).settings == settings
