"""The tables and keys of `config.toml`, each validated into its typed setting.

Every key is optional; a key the app does not know is an error, like a wrong value, so a
typo never passes silently. The layout::

    default_profile = "local"          # else the first profile
    default_mode = "personalization"   # or "objective"
    theme = "textual-dark"

    [profiles.local]
    base_url = "http://127.0.0.1:8080/v1"
    model = "gemma-3-270m"
    api_key_env = "OPENAI_API_KEY"     # or api_key = "..." (then keep the file mode 0600)
    context_window = 0                 # 0 = ask the server, then the known-models table
    output_reserve = 0                 # 0 = [context] output_reserve
    headers = { "X-Title" = "ctxchat" }

    [context]
    system_prompt = "You are a helpful assistant."
    min_recent = 10
    selection = "recency"              # or "scored"
    context_window = 0                 # for profiles that set none; 0 = detect
    output_reserve = 0                 # 0 = min(4096, window / 8)

    [context.shares]
    system = 0.10
    memory = 0.10
    summary = 0.20
    working = 0.60

    [summary]
    strategy = "summarize"             # or "semantic", "keyvalue"
    auto = true
    min_messages = 6
    min_tokens = 2000
    max_unsummarized = 0               # 0 = off
    profile = ""                       # a profile for the summarizer; "" = the chat profile
    model = ""                         # a model for the summarizer; "" = the profile's
    max_tokens = 0                     # at most this long; 0 = what the summary share allows

    [model]                            # waits on the server, in seconds
    chunk_timeout = 60                 # silence allowed between two chunks of a reply
    first_chunk_timeout = 300          # wait for a reply to start
    connect_timeout = 5

    [keys]                             # binding id = keys
    "mode.toggle" = "ctrl+o"

With no file (or a file without profiles), `OPENAI_API_KEY` and/or `OPENAI_BASE_URL`
give a profile named "openai".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ctxchat.config.keylines import Key
from ctxchat.config.reader import TableReader
from ctxchat.config.settings import (
    DEFAULT_THEME,
    ContextSettings,
    MemorySettings,
    ModelSettings,
    ProviderProfile,
    RecallSettings,
    Settings,
    SummarySettings,
    is_sensitive_header,
)
from ctxchat.core.budget import SHARED_LAYERS, BudgetError, BudgetShares

OPENAI_API_KEY = "OPENAI_API_KEY"
OPENAI_BASE_URL = "OPENAI_BASE_URL"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
ENV_PROFILE_NAME = "openai"

TOP_KEYS = (
    "default_profile",
    "default_mode",
    "theme",
    "profiles",
    "context",
    "summary",
    "recall",
    "memory",
    "model",
    "keys",
)
PROFILE_KEYS = (
    "base_url",
    "model",
    "api_key_env",
    "api_key",
    "context_window",
    "output_reserve",
    "headers",
)
CONTEXT_KEYS = (
    "system_prompt",
    "min_recent",
    "selection",
    "context_window",
    "output_reserve",
    "shares",
)
SHARE_KEYS = tuple(layer.value for layer in SHARED_LAYERS)
SUMMARY_KEYS = (
    "strategy",
    "auto",
    "min_messages",
    "min_tokens",
    "max_unsummarized",
    "profile",
    "model",
    "max_tokens",
)

RECALL_KEYS = (
    "enabled",
    "share",
    "half_life",
    "limit",
    "semantic",
    "long_after_turns",
    "long_shift",
)
MODEL_KEYS = ("chunk_timeout", "first_chunk_timeout", "connect_timeout")

MEMORY_KEYS = ("hypothesis_turns", "dates")

_URL = "a URL starting with http:// or https://"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def env_profile(env: Mapping[str, str]) -> ProviderProfile | None:
    """The profile `OPENAI_API_KEY` / `OPENAI_BASE_URL` describe, or None when neither is set."""
    key = env.get(OPENAI_API_KEY, "").strip()
    base_url = env.get(OPENAI_BASE_URL, "").strip()
    if not key and not base_url:
        return None
    return ProviderProfile(
        name=ENV_PROFILE_NAME,
        base_url=base_url or OPENAI_DEFAULT_BASE_URL,
        model=OPENAI_DEFAULT_MODEL,
        # A local server named by OPENAI_BASE_URL alone needs no key.
        api_key_env=OPENAI_API_KEY if key else None,
    )


def default_settings(env: Mapping[str, str]) -> Settings:
    """The settings with no config file: defaults, plus the environment's profile if any."""
    profile = env_profile(env)
    if profile is None:
        return Settings()
    return Settings(profiles={profile.name: profile}, default_profile=profile.name)


def read_settings(
    reader: TableReader, data: dict[str, object], env: Mapping[str, str]
) -> tuple[Settings, list[str]]:
    """Validate a parsed file; also returns the names of profiles taken from the environment."""
    reader.check_keys(data, (), TOP_KEYS)
    profiles = _read_profiles(reader, data)
    env_profiles: list[str] = []
    if not profiles:
        from_env = env_profile(env)
        if from_env is not None:
            profiles[from_env.name] = from_env
            env_profiles.append(from_env.name)
    context = _read_context(reader, data)
    summary = _read_summary(reader, data, profiles)
    recall = _read_recall(reader, data)
    memory = _read_memory(reader, data)
    model = _read_model(reader, data)
    default_profile = reader.string(data, ("default_profile",), "", what="a profile name")
    if default_profile and default_profile not in profiles:
        raise reader.error(("default_profile",), _no_such_profile(default_profile, profiles))
    _check_reserves(reader, profiles, context)
    keys_table = reader.table(data, ("keys",))
    keymap = {}
    for binding in keys_table:
        keys = reader.string(keys_table, ("keys", binding), "", what='keys such as "ctrl+o"')
        if not keys.strip():
            raise reader.expected(("keys", binding), 'keys such as "ctrl+o"', keys)
        keymap[binding] = keys
    settings = Settings(
        profiles=profiles,
        default_profile=default_profile or next(iter(profiles), ""),
        context=context,
        summary=summary,
        recall=recall,
        memory=memory,
        model=model,
        default_mode=reader.choice(data, ("default_mode",), Settings().default_mode),
        theme=_read_theme(reader, data),
        keymap=keymap,
    )
    return settings, env_profiles


def _read_theme(reader: TableReader, data: dict[str, object]) -> str:
    theme = reader.string(data, ("theme",), DEFAULT_THEME, what="a theme name")
    if not theme.strip():
        raise reader.expected(("theme",), "a theme name", theme)
    return theme


def _no_such_profile(name: str, profiles: Mapping[str, ProviderProfile]) -> str:
    if not profiles:
        return f'no profile named "{name}": no profiles are configured'
    listed = ", ".join(f'"{n}"' for n in profiles)
    return f'no profile named "{name}"; expected one of {listed}'


def _read_profiles(reader: TableReader, data: dict[str, object]) -> dict[str, ProviderProfile]:
    table = reader.table(data, ("profiles",), like="[profiles.local]")
    profiles: dict[str, ProviderProfile] = {}
    for name in table:
        at: Key = ("profiles", name)
        if not name.strip():
            raise reader.error(at, "a profile needs a name")
        profiles[name] = _read_profile(reader, reader.table(table, at), at)
    return profiles


def _read_profile(reader: TableReader, table: dict[str, object], at: Key) -> ProviderProfile:
    reader.check_keys(table, at, PROFILE_KEYS)
    base_url = reader.required_string(table, (*at, "base_url"), _URL)
    if not base_url.startswith(("http://", "https://")):
        raise reader.expected((*at, "base_url"), _URL, base_url)
    model = reader.required_string(table, (*at, "model"), 'a model name, like "gpt-4o-mini"')
    api_key_env = reader.optional_string(
        table, (*at, "api_key_env"), what="an environment variable name"
    )
    if api_key_env is not None and not _ENV_NAME.match(api_key_env):
        raise reader.expected(
            (*at, "api_key_env"),
            "an environment variable name (letters, digits and _), not the key itself",
            api_key_env,
            # Someone may have pasted the key here.
            secret=True,
        )
    api_key = reader.string(table, (*at, "api_key"), "", what="a string", secret=True) or None
    if api_key_env and api_key:
        raise reader.error(
            (*at, "api_key"), "set api_key_env or api_key, not both (api_key_env is set)"
        )
    window = reader.integer(table, (*at, "context_window"), 0)
    reserve = reader.integer(table, (*at, "output_reserve"), 0)
    headers_table = reader.table(table, (*at, "headers"))
    headers = {}
    for header in headers_table:
        secret = is_sensitive_header(header)
        headers[header] = reader.string(
            headers_table, (*at, "headers", header), "", what="a string", secret=secret
        )
    return ProviderProfile(
        name=at[-1],
        base_url=base_url,
        model=model,
        api_key_env=api_key_env,
        api_key=api_key,
        context_window=window,
        output_reserve=reserve,
        headers=headers,
    )


def _read_context(reader: TableReader, data: dict[str, object]) -> ContextSettings:
    at: Key = ("context",)
    table = reader.table(data, at)
    reader.check_keys(table, at, CONTEXT_KEYS)
    defaults = ContextSettings()
    return ContextSettings(
        shares=_read_shares(reader, table),
        min_recent=reader.integer(table, (*at, "min_recent"), defaults.min_recent),
        selection=reader.choice(table, (*at, "selection"), defaults.selection),
        context_window=reader.integer(table, (*at, "context_window"), 0),
        output_reserve=reader.integer(table, (*at, "output_reserve"), 0),
        system_prompt=reader.string(table, (*at, "system_prompt"), defaults.system_prompt),
    )


def _read_shares(reader: TableReader, context: dict[str, object]) -> BudgetShares:
    at: Key = ("context", "shares")
    table = reader.table(context, at)
    reader.check_keys(table, at, SHARE_KEYS)
    defaults = BudgetShares().as_dict()
    values: dict[str, float] = {}
    for name in SHARE_KEYS:
        value = reader.number(table, (*at, name), defaults[name], "a number from 0 to 1")
        try:
            # One share alone first, so a bad value is reported at its own line.
            BudgetShares(**(dict.fromkeys(SHARE_KEYS, 0.0) | {name: value}))
        except BudgetError as error:
            raise reader.error((*at, name), str(error)) from None
        values[name] = value
    try:
        return BudgetShares(**values)
    except BudgetError as error:
        unset = [name for name in SHARE_KEYS if name not in table and defaults[name]]
        note = f" (unset shares keep their defaults: {', '.join(unset)})" if unset else ""
        raise reader.error(at, f"{error}{note}") from None


def _read_summary(
    reader: TableReader, data: dict[str, object], profiles: Mapping[str, ProviderProfile]
) -> SummarySettings:
    at: Key = ("summary",)
    table = reader.table(data, at)
    reader.check_keys(table, at, SUMMARY_KEYS)
    defaults = SummarySettings()
    profile = reader.optional_string(table, (*at, "profile"), what="a profile name")
    if profile is not None and profile not in profiles:
        raise reader.error((*at, "profile"), _no_such_profile(profile, profiles))
    return SummarySettings(
        strategy=reader.choice(table, (*at, "strategy"), defaults.strategy),
        auto=reader.boolean(table, (*at, "auto"), defaults.auto),
        min_messages=reader.integer(table, (*at, "min_messages"), defaults.min_messages),
        min_tokens=reader.integer(table, (*at, "min_tokens"), defaults.min_tokens),
        max_unsummarized=reader.integer(
            table, (*at, "max_unsummarized"), defaults.max_unsummarized
        ),
        profile=profile,
        model=reader.optional_string(table, (*at, "model"), what="a model name"),
        max_tokens=reader.integer(table, (*at, "max_tokens"), defaults.max_tokens),
    )


def _read_recall(reader: TableReader, data: dict[str, object]) -> RecallSettings:
    at: Key = ("recall",)
    table = reader.table(data, at)
    reader.check_keys(table, at, RECALL_KEYS)
    defaults = RecallSettings()
    fractions = {}
    for name in ("share", "long_shift"):
        value = reader.number(table, (*at, name), getattr(defaults, name), "a number from 0 to 1")
        if not 0 <= value <= 1:
            raise reader.error((*at, name), f"expected a number from 0 to 1, got {value}")
        fractions[name] = value
    half_life = reader.number(table, (*at, "half_life"), defaults.half_life, "a positive number")
    if half_life <= 0:
        raise reader.error((*at, "half_life"), f"expected a positive number, got {half_life}")
    return RecallSettings(
        enabled=reader.boolean(table, (*at, "enabled"), defaults.enabled),
        share=fractions["share"],
        half_life=half_life,
        limit=reader.integer(table, (*at, "limit"), defaults.limit),
        semantic=reader.boolean(table, (*at, "semantic"), defaults.semantic),
        long_after_turns=reader.integer(
            table, (*at, "long_after_turns"), defaults.long_after_turns
        ),
        long_shift=fractions["long_shift"],
    )


def _read_memory(reader: TableReader, data: dict[str, object]) -> MemorySettings:
    at: Key = ("memory",)
    table = reader.table(data, at)
    reader.check_keys(table, at, MEMORY_KEYS)
    defaults = MemorySettings()
    return MemorySettings(
        hypothesis_turns=reader.integer(
            table, (*at, "hypothesis_turns"), defaults.hypothesis_turns
        ),
        dates=reader.boolean(table, (*at, "dates"), defaults.dates),
    )


def _read_model(reader: TableReader, data: dict[str, object]) -> ModelSettings:
    at: Key = ("model",)
    table = reader.table(data, at)
    reader.check_keys(table, at, MODEL_KEYS)
    defaults = ModelSettings()
    seconds = {}
    for name in MODEL_KEYS:
        value = reader.number(table, (*at, name), getattr(defaults, name), "seconds, above 0")
        if value <= 0:
            raise reader.expected((*at, name), "seconds, above 0", table[name])
        seconds[name] = value
    return ModelSettings(**seconds)


def _check_reserves(
    reader: TableReader, profiles: Mapping[str, ProviderProfile], context: ContextSettings
) -> None:
    """Every configured output reserve must be smaller than the window it applies to."""
    checks: list[tuple[Key, int, int, str]] = []
    if context.context_window and context.output_reserve:
        checks.append(
            (("context", "output_reserve"), context.output_reserve, context.context_window, "")
        )
    for name, profile in profiles.items():
        window = profile.context_window or context.context_window
        reserve = profile.output_reserve or context.output_reserve
        if profile.output_reserve:
            at: Key = ("profiles", name, "output_reserve")
        else:
            at = ("context", "output_reserve")
        where = f' of profile "{name}"' if profile.context_window else ""
        checks.append((at, reserve, window, where))
    for at, reserve, window, where in checks:
        if window and reserve and reserve >= window:
            raise reader.error(
                at,
                f"output_reserve ({reserve}) must be smaller than the context window{where} "
                f"({window})",
            )
