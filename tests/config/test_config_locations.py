"""Every path comes from locations.py: overrides first, then the environment, then platformdirs."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from ctxchat.config.files import ensure_private_dir
from ctxchat.config.locations import (
    Locations,
    cache_dir,
    config_path,
    data_dir,
    database_path,
    state_path,
    user_themes_dir,
)


def test_config_path_prefers_the_override_then_the_environment(tmp_path: Path) -> None:
    env = {"CTXCHAT_CONFIG": str(tmp_path / "env.toml")}
    assert config_path(tmp_path / "flag.toml", env) == tmp_path / "flag.toml"
    assert config_path(None, env) == tmp_path / "env.toml"


def test_data_dir_prefers_the_override_then_the_environment(tmp_path: Path) -> None:
    env = {"CTXCHAT_DATA_DIR": str(tmp_path / "env")}
    assert data_dir(tmp_path / "flag", env) == tmp_path / "flag"
    assert data_dir(None, env) == tmp_path / "env"


def test_cache_dir_comes_from_the_environment(tmp_path: Path) -> None:
    assert cache_dir({"CTXCHAT_CACHE_DIR": str(tmp_path / "env")}) == tmp_path / "env"


def test_a_tilde_in_an_override_is_expanded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_path(None, {"CTXCHAT_CONFIG": "~/c.toml"}) == tmp_path / "c.toml"


@pytest.mark.skipif(sys.platform != "linux", reason="XDG directories are Linux's")
def test_without_overrides_the_platform_directories_are_used(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert config_path(env={}) == tmp_path / "config" / "ctxchat" / "config.toml"
    assert data_dir(env={}) == tmp_path / "data" / "ctxchat"
    assert cache_dir(env={}) == tmp_path / "cache" / "ctxchat"
    assert config_path(env={"CTXCHAT_CONFIG": "  "}) == tmp_path / "config/ctxchat/config.toml"


def test_files_inside_the_data_and_config_directories(tmp_path: Path) -> None:
    assert database_path(tmp_path) == tmp_path / "ctxchat.db"
    assert state_path(tmp_path) == tmp_path / "state.toml"
    assert user_themes_dir(tmp_path / "cfg" / "config.toml") == tmp_path / "cfg" / "themes"


def test_locations_resolves_every_path_from_the_same_overrides(tmp_path: Path) -> None:
    locations = Locations.resolve(
        config=tmp_path / "c" / "config.toml",
        data=tmp_path / "d",
        env={"CTXCHAT_CACHE_DIR": str(tmp_path / "k")},
    )
    assert locations.as_dict() == {
        "config_file": str(tmp_path / "c" / "config.toml"),
        "data_dir": str(tmp_path / "d"),
        "database": str(tmp_path / "d" / "ctxchat.db"),
        "state_file": str(tmp_path / "d" / "state.toml"),
        "themes_dir": str(tmp_path / "c" / "themes"),
        "cache_dir": str(tmp_path / "k"),
        "engine_dir": str(tmp_path / "d" / "engine"),
    }


def test_new_directories_are_private_and_existing_ones_untouched(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    target = ensure_private_dir(tmp_path / "a" / "b")
    assert target == tmp_path / "a" / "b"
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "a" / "b").stat().st_mode) == 0o700
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755
