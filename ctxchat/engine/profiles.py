"""Profiles whose model runs in the engine: the URL they talk to, and the profile used when
nothing else is configured."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ctxchat.config.settings import ENGINE_PLACEHOLDER_URL, ProviderProfile, engine_profile
from ctxchat.engine.control import EngineOptions, running_engine
from ctxchat.engine.files import bundled_model, engine_installed
from ctxchat.engine.state import last_port

__all__ = ["default_engine_profile", "engine_options", "expected_base_url", "with_engine_url"]


def engine_options(profile: ProviderProfile) -> EngineOptions:
    """What the profile asks of the engine: its model, and its window when it sets one (the
    window the engine is started with; a running engine keeps its own)."""
    return EngineOptions(model=profile.engine or "", n_ctx=profile.context_window)


def expected_base_url(directory: Path, profile: ProviderProfile) -> str:
    """Where the profile's engine listens: the running one's URL, else where the next one
    will (the last port, which it takes again when free)."""
    state = running_engine(directory)
    if state is not None and state.model == engine_options(profile).name:
        return state.base_url
    port = last_port(directory)
    return f"http://127.0.0.1:{port}/v1" if port else ENGINE_PLACEHOLDER_URL


def with_engine_url(directory: Path, profile: ProviderProfile) -> ProviderProfile:
    """An engine profile with the engine's URL (other profiles as they are)."""
    if not profile.engine:
        return profile
    return dataclasses.replace(profile, base_url=expected_base_url(directory, profile))


def default_engine_profile() -> ProviderProfile | None:
    """The profile of the small model on this machine, when the engine and the model are
    installed (what a command uses when nothing else is configured)."""
    if engine_installed() and bundled_model() is not None:
        return engine_profile()
    return None
