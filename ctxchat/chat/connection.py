"""Connecting to a model server: the backend for a profile, and whether two profiles share one."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ctxchat.config.errors import MissingApiKey
from ctxchat.config.settings import ModelSettings, ProviderProfile
from ctxchat.model.backend import ModelBackend

__all__ = ["make_backend", "same_server"]


def make_backend(
    profile: ProviderProfile, env: Mapping[str, str], timeouts: ModelSettings | None = None
) -> ModelBackend:
    """The OpenAI-compatible backend for a profile: its server, key and headers (raises
    MissingApiKey without its key), waiting on the server as long as `timeouts` (the
    `[model]` settings) allow; for an engine profile, the engine (started when first used,
    found in `env`'s engine directory: the workspace sets it). The `openai` package is
    imported on first use."""
    from ctxchat.model.deferred import DeferredBackend

    waits = dataclasses.asdict(timeouts) if timeouts is not None else {}
    if profile.engine:
        from ctxchat.config.locations import Locations
        from ctxchat.engine.backend import EngineBackend
        from ctxchat.engine.profiles import engine_options

        directory = Locations.resolve(env=env).engine_dir
        return EngineBackend(directory, engine_options(profile), profile.headers, env, **waits)
    return DeferredBackend(profile.base_url, profile.resolve_api_key(env), profile.headers, **waits)


def same_server(one: ProviderProfile, other: ProviderProfile, env: Mapping[str, str]) -> bool:
    """Whether requests for the two profiles go to one server the same way."""

    def key(profile: ProviderProfile) -> str | None:
        try:
            return profile.resolve_api_key(env)
        except MissingApiKey:
            return None

    # Two engine profiles may share a URL (the engine's port) and still run other models.
    return (one.base_url, dict(one.headers), key(one), one.engine) == (
        other.base_url,
        dict(other.headers),
        key(other),
        other.engine,
    )
