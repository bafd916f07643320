"""With no config file: built-in defaults, plus a profile from OPENAI_API_KEY / OPENAI_BASE_URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxchat.config.errors import ConfigError, UnknownProfile
from ctxchat.config.loader import load_settings
from ctxchat.config.settings import ProviderProfile, Settings


def test_no_file_and_no_environment_needs_the_first_run_setup(tmp_path: Path) -> None:
    loaded = load_settings(tmp_path / "missing.toml", {})
    assert loaded.settings == Settings()
    assert loaded.path is None
    assert loaded.warnings == ()
    assert loaded.settings.needs_setup is True
    assert loaded.settings.default_profile == ""
    with pytest.raises(UnknownProfile) as caught:
        loaded.settings.profile()
    assert str(caught.value) == (
        "no model server is configured: run `ctxchat config init`, or set OPENAI_BASE_URL "
        "(and OPENAI_API_KEY if the server needs a key)"
    )


def test_openai_api_key_alone_gives_an_openai_profile(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-test-abcdefghijklmnop"}
    loaded = load_settings(tmp_path / "missing.toml", env)
    assert loaded.settings.profiles == {
        "openai": ProviderProfile(
            name="openai",
            base_url="https://api.openai.com/v1",
            model="gpt-4o-mini",
            api_key_env="OPENAI_API_KEY",
        )
    }
    assert loaded.settings.default_profile == "openai"
    assert loaded.settings.needs_setup is False
    assert loaded.settings.profile().resolve_api_key(env) == "sk-test-abcdefghijklmnop"
    assert loaded.source("profiles.openai") == "env"


def test_openai_base_url_alone_gives_a_profile_without_a_key(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}
    profile = load_settings(tmp_path / "missing.toml", env).settings.profile()
    assert profile == ProviderProfile(
        name="openai", base_url="http://127.0.0.1:8080/v1", model="gpt-4o-mini"
    )
    assert profile.resolve_api_key(env) is None


def test_both_variables_give_one_profile_with_both(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": "https://example.test/v1", "OPENAI_API_KEY": "k" * 20}
    profile = load_settings(tmp_path / "missing.toml", env).settings.profile()
    assert (profile.base_url, profile.api_key_env) == ("https://example.test/v1", "OPENAI_API_KEY")


def test_empty_variables_count_as_unset(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": " ", "OPENAI_API_KEY": ""}
    assert load_settings(tmp_path / "missing.toml", env).settings.needs_setup is True


def test_a_file_without_profiles_still_uses_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "nord"\n')
    loaded = load_settings(path, {"OPENAI_BASE_URL": "http://localhost:11434/v1"})
    assert loaded.path == path
    assert loaded.settings.theme == "nord"
    assert loaded.settings.profile().base_url == "http://localhost:11434/v1"
    assert loaded.source("profiles.openai") == "env"
    assert loaded.source("theme") == "file"


def test_profiles_in_the_file_replace_the_environment_profile(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.local]\nbase_url = "http://127.0.0.1:8080/v1"\nmodel = "m"\n')
    loaded = load_settings(path, {"OPENAI_BASE_URL": "http://elsewhere/v1"})
    assert list(loaded.settings.profiles) == ["local"]
    assert loaded.settings.default_profile == "local"


def test_the_default_location_comes_from_ctxchat_config(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text('theme = "nord"\n')
    loaded = load_settings(None, {"CTXCHAT_CONFIG": str(path)})
    assert (loaded.path, loaded.settings.theme) == (path, "nord")


def test_an_explicitly_required_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path / "missing.toml", {}, required=True)
    assert str(caught.value) == f"{tmp_path / 'missing.toml'}: no such file"
