"""Opening what every command needs: settings, the store and the state file."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ctxchat.chat import term_files
from ctxchat.config.loader import LoadedSettings, load_settings
from ctxchat.config.locations import ENGINE_DIR_ENV, Locations
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.config.state import AppState, LoadedState, load_state, save_state
from ctxchat.core import encodings
from ctxchat.store import Store


@dataclass
class Workspace:
    """Settings, paths, the open store and the app's state for one run."""

    loaded: LoadedSettings
    locations: Locations
    store: Store
    state: AppState
    env: dict[str, str]
    warnings: list[str] = field(default_factory=list)

    @property
    def settings(self) -> Settings:
        return self.loaded.settings

    @property
    def secrets(self) -> list[str]:
        return self.settings.secrets(self.env)

    def save_state(self, state: AppState) -> None:
        self.state = state
        save_state(self.locations.state_file, state)

    def update_state(self, **changes: object) -> None:
        """Save the state with `changes` (field names of AppState); the rest stays."""
        self.save_state(dataclasses.replace(self.state, **changes))  # type: ignore[arg-type]

    def last_or_latest(self) -> int | None:
        """The conversation used last if it still exists, else the newest (None: none yet)."""
        last = self.state.last_conversation_id
        if last is not None:
            with contextlib.suppress(LookupError):
                return self.store.conversations.get_conversation(last).id
        latest = self.store.conversations.latest_conversation()
        return None if latest is None else latest.id

    def start_conversation(self, profile: ProviderProfile | None = None) -> int:
        """A new, empty conversation with `profile`'s model (None: no server chosen yet)."""
        conversation = self.store.conversations.create_conversation(
            model=profile.model if profile else None, profile=profile.name if profile else None
        )
        return conversation.id

    def close(self) -> None:
        self.store.close()


def open_workspace(
    *,
    config: Path | None = None,
    data_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Workspace:
    """Load settings and state and open the store.

    Raises ConfigError (bad config), StoreError and its kinds (bad database).
    """
    environment = dict(os.environ if env is None else env)
    locations = Locations.resolve(config=config, data=data_dir, env=environment)
    # Backends made from this env find the engine of this data directory (`make_backend`).
    environment.setdefault(ENGINE_DIR_ENV, str(locations.engine_dir))
    encodings.use_cache_dir(locations.cache_dir)
    term_files.use_directory(locations.cache_dir)
    loaded = load_settings(locations.config_file, environment, required=config is not None)
    store = Store.open(locations.database)
    state: LoadedState = load_state(locations.state_file)
    warnings = [*loaded.warnings, *state.warnings]
    if store.interrupted_on_open:
        count = store.interrupted_on_open
        warnings.append(
            f"{count} reply{' was' if count == 1 else 'ies were'} cut off when ctxchat last "
            "stopped; they are kept and marked interrupted."
        )
    return Workspace(loaded, locations, store, state.state, environment, warnings)
