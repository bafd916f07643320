"""The effective settings as plain data for `ctxchat config show`: secrets masked, sources noted."""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import StrEnum

from ctxchat.config.declare import declarations
from ctxchat.config.loader import LoadedSettings
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.config.state import AppState
from ctxchat.core.budget import BudgetShares
from ctxchat.redaction import mask_secret, redact

ReportValue = str | int | float | bool | None | list[str] | dict[str, "ReportValue"]


def _key_status(profile: ProviderProfile, env: Mapping[str, str]) -> tuple[str | None, str]:
    """The masked key and where it comes from (never the key itself)."""
    if profile.engine:
        return None, "the engine's own, new at each start"
    if profile.api_key:
        return mask_secret(profile.api_key), "config file"
    if profile.api_key_env:
        value = profile.env_key(env)
        if value:
            return mask_secret(value), f"${profile.api_key_env}"
        return None, f"${profile.api_key_env} (not set)"
    return None, "none (the server needs no key)"


def _profile(profile: ProviderProfile, env: Mapping[str, str]) -> dict[str, ReportValue]:
    key, key_source = _key_status(profile, env)
    return {
        # An engine profile's server is the engine, wherever it listens when it runs.
        "base_url": "the engine" if profile.engine else profile.base_url,
        "model": profile.model,
        "engine": profile.engine,
        "api_key_env": profile.api_key_env,
        "api_key": key,
        "api_key_source": key_source,
        "context_window": profile.context_window,
        "output_reserve": profile.output_reserve,
        "temperature": profile.temperature,
        "top_p": profile.top_p,
        "headers": dict(profile.masked_headers().items()),
        "pricing": profile.pricing.value,
    }


def _settings(settings: Settings, env: Mapping[str, str]) -> dict[str, ReportValue]:
    values = _declared(settings, Settings)
    values["profiles"] = {name: _profile(p, env) for name, p in settings.profiles.items()}
    return values


def _declared(values: object, cls: type) -> dict[str, ReportValue]:
    """Every declared setting of `values` (a dataclass of settings), by key."""
    report: dict[str, ReportValue] = {}
    for item in declarations(cls):
        value = getattr(values, item.name)
        if item.kind == "section":
            report[item.key] = _declared(value, item.of)
        elif item.kind == "sections":
            report[item.key] = {name: _declared(entry, item.of) for name, entry in value.items()}
        elif isinstance(value, StrEnum):
            report[item.key] = value.value
        elif isinstance(value, BudgetShares):
            report[item.key] = dict(value.as_dict())
        elif isinstance(value, Mapping):
            report[item.key] = dict(value)
        else:
            report[item.key] = value
    return report


def _sources(loaded: LoadedSettings) -> dict[str, str]:
    """Dotted key → "file", "env" or "default" for every setting."""
    keys = _keys(loaded.settings, Settings, "")
    return {key: loaded.source(key) for key in keys}


def _keys(values: object, cls: type, prefix: str) -> list[str]:
    """The dotted keys of every setting: each profile and each key remap as one."""
    keys: list[str] = []
    for item in declarations(cls):
        value = getattr(values, item.name)
        key = prefix + item.key
        if item.kind == "section":
            keys += _keys(value, item.of, f"{key}.")
        elif item.kind == "shares":
            keys += [f"{key}.{name}" for name in value.as_dict()]
        elif item.kind in ("sections", "strings"):
            keys += [f"{key}.{name}" for name in value]
        else:
            keys.append(key)
    return keys


def _redacted(value: ReportValue, secrets: list[str]) -> ReportValue:
    """Every string run through redaction: a key pasted into the wrong setting stays hidden."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [redact(item, secrets) for item in value]
    if isinstance(value, dict):
        return {redact(k, secrets): _redacted(v, secrets) for k, v in value.items()}
    return value


STATE_SOURCE = "state: last chosen in the app"
"""The source of a setting the app's state file overrides (a theme picked with the
palette, the mode last switched to)."""


def settings_report(
    loaded: LoadedSettings, env: Mapping[str, str] | None = None, state: AppState | None = None
) -> dict[str, ReportValue]:
    """`config show`'s data: the config file, the settings in force, sources and warnings.

    A theme picked in the app and the mode last chosen there (`state`) are in force over
    the config's, and shown as such. Keys appear only masked (`sk-…abcd`);
    `api_key_source` says where each comes from.
    """
    env = os.environ if env is None else env
    settings = _settings(loaded.settings, env)
    sources = _sources(loaded)
    if state is not None:
        for key, chosen in (("theme", state.theme), ("default_mode", state.last_mode)):
            if chosen is not None:
                settings[key] = str(chosen)
                sources[key] = STATE_SOURCE
    report: dict[str, ReportValue] = {
        "config_file": str(loaded.path) if loaded.path is not None else None,
        "needs_setup": loaded.settings.needs_setup,
        "settings": settings,
        "sources": dict(sources),
        "warnings": list(loaded.warnings),
    }
    # Masked keys survive this pass (they no longer contain the key); it catches a key
    # pasted into some other setting.
    return {name: _redacted(value, loaded.settings.secrets(env)) for name, value in report.items()}
