"""The options a session is opened with, as one typed object (the CLI converts its arguments)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ctxchat.core.memory import Mode

__all__ = ["SessionOptions"]


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """What was chosen for this run: on the command line, or by the code that starts one."""

    config: Path | None = None
    """The config file (None: CTXCHAT_CONFIG or the user config dir)."""
    data_dir: Path | None = None
    """Where the database lives (None: CTXCHAT_DATA_DIR or the user data dir)."""
    conversation: int | None = None
    """The conversation to open (None: the last one used, else the newest)."""
    profile: str | None = None
    """The provider profile (None: the config's default)."""
    model: str | None = None
    """A model instead of the profile's (and the preset's)."""
    preset: str | None = None
    """A preset (`[presets.NAME]`) instead of the conversation's."""
    base_url: str | None = None
    """A server instead of the profile's (with no config at all: the only server)."""
    mode: Mode | None = None
    """The mode (None: the one last used, else the config's default)."""
    offline: bool = False
    """Never ask the server about itself: plan with cached facts, the config or the table."""
