"""Where ctxchat keeps its files: every path the app reads or writes is decided here.

The config file is the user's (`CTXCHAT_CONFIG` or `--config` override it); the data
directory holds the database and the app-owned state file (`CTXCHAT_DATA_DIR` or
`--data-dir` override it); the cache directory holds what can be rebuilt, such as parsed
tokenizer data (`CTXCHAT_CACHE_DIR` overrides it). Nothing is read at import time: each function takes the
override and the environment it should use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "ctxchat"
CONFIG_ENV = "CTXCHAT_CONFIG"
DATA_DIR_ENV = "CTXCHAT_DATA_DIR"
CACHE_DIR_ENV = "CTXCHAT_CACHE_DIR"
ENGINE_DIR_ENV = "CTXCHAT_ENGINE_DIR"
CONFIG_FILENAME = "config.toml"
STATE_FILENAME = "state.toml"
DATABASE_FILENAME = "ctxchat.db"
THEMES_DIRNAME = "themes"
EXPORTS_DIRNAME = "exports"
ENGINE_DIRNAME = "engine"


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def _expand(value: str | Path) -> Path:
    return Path(value).expanduser()


def config_path(override: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The config file: `--config`, else `$CTXCHAT_CONFIG`, else the user config dir's."""
    if override is not None:
        return _expand(override)
    from_env = _env(env).get(CONFIG_ENV, "").strip()
    if from_env:
        return _expand(from_env)
    return platformdirs.user_config_path(APP_NAME, appauthor=False) / CONFIG_FILENAME


def data_dir(override: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The data directory: `--data-dir`, else `$CTXCHAT_DATA_DIR`, else the user data dir."""
    if override is not None:
        return _expand(override)
    from_env = _env(env).get(DATA_DIR_ENV, "").strip()
    if from_env:
        return _expand(from_env)
    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """The cache directory: `$CTXCHAT_CACHE_DIR`, else the user cache dir."""
    from_env = _env(env).get(CACHE_DIR_ENV, "").strip()
    if from_env:
        return _expand(from_env)
    return platformdirs.user_cache_path(APP_NAME, appauthor=False)


def engine_dir(data_directory: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where the engine (the model ctxchat runs on this machine) says where it listens:
    `$CTXCHAT_ENGINE_DIR`, else `engine` in the data directory, so one engine serves every
    ctxchat of the user."""
    from_env = _env(env).get(ENGINE_DIR_ENV, "").strip()
    if from_env:
        return _expand(from_env)
    return data_directory / ENGINE_DIRNAME


def database_path(data_directory: Path) -> Path:
    """The SQLite database inside a data directory."""
    return data_directory / DATABASE_FILENAME


def state_path(data_directory: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The app-owned state file (last mode, theme, server facts) inside the data directory."""
    return (data_directory or data_dir(env=env)) / STATE_FILENAME


def user_themes_dir(config_file: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """User theme files: a `themes` directory beside the config file in use."""
    return config_path(config_file, env).parent / THEMES_DIRNAME


@dataclass(frozen=True, slots=True)
class Locations:
    """Every path at once, resolved from the same overrides (what `ctxchat config path` prints)."""

    config_file: Path
    """The user's config file (it may not exist yet)."""
    data_dir: Path
    """The directory for the database and the state file."""
    database: Path
    """The SQLite database."""
    state_file: Path
    """The app-owned state file."""
    themes_dir: Path
    """Where user theme files are looked for."""
    cache_dir: Path
    """Where rebuildable files (parsed tokenizer data) are kept."""
    engine_dir: Path
    """Where the engine's state, lock and log are."""

    @classmethod
    def resolve(
        cls,
        config: Path | None = None,
        data: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Locations:
        config_file = config_path(config, env)
        data_directory = data_dir(data, env)
        return cls(
            config_file=config_file,
            data_dir=data_directory,
            database=database_path(data_directory),
            state_file=state_path(data_directory),
            themes_dir=user_themes_dir(config_file),
            cache_dir=cache_dir(env),
            engine_dir=engine_dir(data_directory, env),
        )

    @property
    def exports_dir(self) -> Path:
        """Where the TUI offers to export conversations: `exports` in the data directory."""
        return self.data_dir / EXPORTS_DIRNAME

    def as_dict(self) -> dict[str, str]:
        return {
            "config_file": str(self.config_file),
            "data_dir": str(self.data_dir),
            "database": str(self.database),
            "state_file": str(self.state_file),
            "themes_dir": str(self.themes_dir),
            "cache_dir": str(self.cache_dir),
            "engine_dir": str(self.engine_dir),
        }
