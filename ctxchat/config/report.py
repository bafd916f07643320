"""The effective settings as plain data for `ctxchat config show`: secrets masked, sources noted."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from ctxchat.config.loader import LoadedSettings
from ctxchat.config.schema import (
    CONTEXT_KEYS,
    MODEL_KEYS,
    RECALL_KEYS,
    SHARE_KEYS,
    SUMMARY_KEYS,
)
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.redaction import mask_secret, redact

ReportValue = str | int | float | bool | None | list[str] | dict[str, "ReportValue"]


def _key_status(profile: ProviderProfile, env: Mapping[str, str]) -> tuple[str | None, str]:
    """The masked key and where it comes from (never the key itself)."""
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
        "base_url": profile.base_url,
        "model": profile.model,
        "api_key_env": profile.api_key_env,
        "api_key": key,
        "api_key_source": key_source,
        "context_window": profile.context_window,
        "output_reserve": profile.output_reserve,
        "headers": dict(profile.masked_headers().items()),
    }


def _settings(settings: Settings, env: Mapping[str, str]) -> dict[str, ReportValue]:
    context, summary = settings.context, settings.summary
    return {
        "default_profile": settings.default_profile,
        "default_mode": settings.default_mode.value,
        "theme": settings.theme,
        "profiles": {name: _profile(p, env) for name, p in settings.profiles.items()},
        "context": {
            "system_prompt": context.system_prompt,
            "min_recent": context.min_recent,
            "selection": context.selection.value,
            "context_window": context.context_window,
            "output_reserve": context.output_reserve,
            "shares": dict(context.shares.as_dict()),
        },
        "summary": {
            "strategy": summary.strategy.value,
            "auto": summary.auto,
            "min_messages": summary.min_messages,
            "min_tokens": summary.min_tokens,
            "max_unsummarized": summary.max_unsummarized,
            "profile": summary.profile,
            "model": summary.model,
        },
        "recall": {
            "enabled": settings.recall.enabled,
            "share": settings.recall.share,
            "half_life": settings.recall.half_life,
            "limit": settings.recall.limit,
            "semantic": settings.recall.semantic,
            "long_after_turns": settings.recall.long_after_turns,
            "long_shift": settings.recall.long_shift,
        },
        "model": dataclasses.asdict(settings.model),
        "keys": dict(settings.keymap),
    }


def _sources(loaded: LoadedSettings) -> dict[str, str]:
    """Dotted key → "file", "env" or "default" for every setting."""
    settings = loaded.settings
    keys = ["default_profile", "default_mode", "theme"]
    keys += [f"profiles.{name}" for name in settings.profiles]
    keys += [f"context.{name}" for name in CONTEXT_KEYS if name != "shares"]
    keys += [f"context.shares.{name}" for name in SHARE_KEYS]
    keys += [f"summary.{name}" for name in SUMMARY_KEYS]
    keys += [f"recall.{name}" for name in RECALL_KEYS]
    keys += [f"model.{name}" for name in MODEL_KEYS]
    keys += [f"keys.{binding}" for binding in settings.keymap]
    return {key: loaded.source(key) for key in keys}


def _redacted(value: ReportValue, secrets: list[str]) -> ReportValue:
    """Every string run through redaction: a key pasted into the wrong setting stays hidden."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [redact(item, secrets) for item in value]
    if isinstance(value, dict):
        return {redact(k, secrets): _redacted(v, secrets) for k, v in value.items()}
    return value


def settings_report(
    loaded: LoadedSettings, env: Mapping[str, str] | None = None
) -> dict[str, ReportValue]:
    """`config show`'s data: the config file, the effective settings, sources and warnings.

    Keys appear only masked (`sk-…abcd`); `api_key_source` says where each comes from.
    """
    env = os.environ if env is None else env
    settings = _settings(loaded.settings, env)
    report: dict[str, ReportValue] = {
        "config_file": str(loaded.path) if loaded.path is not None else None,
        "needs_setup": loaded.settings.needs_setup,
        "settings": settings,
        "sources": dict(_sources(loaded)),
        "warnings": list(loaded.warnings),
    }
    # Masked keys survive this pass (they no longer contain the key); it catches a key
    # pasted into some other setting.
    return {name: _redacted(value, loaded.settings.secrets(env)) for name, value in report.items()}
