"""`config init`: a commented, private starting config that loads back to the same settings."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ctxchat.config.errors import ConfigError
from ctxchat.config.loader import load_settings, parse_settings
from ctxchat.config.settings import (
    ContextSettings,
    MemorySettings,
    ModelSettings,
    ProviderProfile,
    Settings,
    SummarySettings,
)
from ctxchat.config.template import render_config, starter_settings, write_initial_config
from ctxchat.core.budget import BudgetShares
from ctxchat.core.memory import Mode
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.working import Selection

posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@posix_only
def test_the_file_is_0600_in_new_0700_directories(tmp_path: Path) -> None:
    path = tmp_path / "new" / "ctxchat" / "config.toml"
    assert write_initial_config(path) == path
    assert _mode(path) == 0o600
    assert _mode(tmp_path / "new") == 0o700
    assert _mode(tmp_path / "new" / "ctxchat") == 0o700


def test_the_starting_config_is_commented_and_loads_back(tmp_path: Path) -> None:
    path = write_initial_config(tmp_path / "config.toml")
    text = path.read_text()
    assert text.startswith("# ctxchat configuration.\n# This file is yours:")
    assert '# api_key_env = "OPENAI_API_KEY"\n' in text
    assert "[profiles.local]\n" in text
    loaded = load_settings(path, {})
    assert loaded.settings == starter_settings()
    assert loaded.settings.profile().base_url == "http://127.0.0.1:8080/v1"
    assert loaded.warnings == ()


def test_an_existing_file_is_never_overwritten_without_force(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# mine\n")
    with pytest.raises(FileExistsError) as caught:
        write_initial_config(path)
    assert caught.value.filename == str(path)
    assert path.read_text() == "# mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


@posix_only
def test_force_replaces_the_file_and_makes_it_private(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# mine\n")
    path.chmod(0o644)
    write_initial_config(path, force=True)
    assert _mode(path) == 0o600
    assert load_settings(path, {}).settings == starter_settings()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_a_given_profile_is_written_with_its_key_source(tmp_path: Path) -> None:
    profile = ProviderProfile(
        "openai", "https://api.openai.com/v1", "gpt-4o-mini", api_key_env="OPENAI_API_KEY"
    )
    path = write_initial_config(tmp_path / "config.toml", profile=profile)
    assert 'api_key_env = "OPENAI_API_KEY"\n' in path.read_text()
    assert load_settings(path, {}).settings.profiles == {"openai": profile}


def test_profile_and_settings_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not both"):
        write_initial_config(
            tmp_path / "c.toml", profile=starter_settings().profile(), settings=Settings()
        )


def test_every_setting_survives_a_round_trip() -> None:
    settings = Settings(
        profiles={
            "my server": ProviderProfile(
                name="my server",
                base_url="https://api.example.com/v1",
                model="big",
                api_key="sk-stored-abcdefghijklmnop",
                context_window=65536,
                output_reserve=8000,
                headers={"X-Title": "ctxchat", "HTTP-Referer": "https://example.com"},
            ),
            "local": ProviderProfile("local", "http://127.0.0.1:8080/v1", "gemma"),
        },
        default_profile="my server",
        context=ContextSettings(
            shares=BudgetShares(system=0.05, memory=0.15, summary=0.3, working=0.5),
            min_recent=3,
            selection=Selection.SCORED,
            context_window=16384,
            output_reserve=1000,
            system_prompt='Answer in "French".\nBe brief.\t# not a comment',
        ),
        summary=SummarySettings(
            strategy=SummaryStrategy.SEMANTIC,
            auto=False,
            min_messages=2,
            min_tokens=500,
            max_unsummarized=30,
            profile="local",
            model="tiny",
        ),
        memory=MemorySettings(hypothesis_turns=12, dates=True),
        model=ModelSettings(chunk_timeout=12.5, first_chunk_timeout=600, connect_timeout=2),
        default_mode=Mode.OBJECTIVE,
        theme="my-theme",
        keymap={"toggle_mode": "ctrl+o", "quit": "ctrl+q,f10"},
    )
    assert parse_settings(render_config(settings), {}).settings == settings


def test_settings_without_profiles_round_trip_with_a_commented_example() -> None:
    text = render_config(Settings())
    assert '# [profiles.local]\n# base_url = "http://127.0.0.1:8080/v1"\n' in text
    assert '# default_profile = "local"\n' in text
    assert parse_settings(text, {}).settings == Settings()


@posix_only
def test_modes_are_exact_even_under_a_strict_umask(tmp_path: Path) -> None:
    previous = os.umask(0o277)
    try:
        path = write_initial_config(tmp_path / "new" / "config.toml")
    finally:
        os.umask(previous)
    assert (_mode(tmp_path / "new"), _mode(path)) == (0o700, 0o600)


def test_the_memory_table_is_documented_with_its_defaults() -> None:
    text = render_config(Settings())
    assert "[memory]\n" in text
    assert "hypothesis_turns = 30\n" in text
    assert "dates = false\n" in text
    assert parse_settings(text, {}).settings.memory == MemorySettings()


def test_a_negative_hypothesis_limit_is_one_clear_error() -> None:
    with pytest.raises(ConfigError, match="hypothesis_turns"):
        parse_settings("[memory]\nhypothesis_turns = -1\n", {})


def test_the_keys_table_lists_the_memory_panels_binding_ids_with_their_keys() -> None:
    text = render_config(starter_settings())
    keys = text[text.index("[keys]") :]
    assert '# "memory.add" = "ctrl+a,insert"\n' in keys
    assert '# "memory.importance_up" = "shift+up"\n' in keys
    assert '# "memory.order" = "f5"\n' in keys
    # Commented out: the keys as shipped, not remaps.
    assert parse_settings(text, {}).settings.keymap == {}
