"""Reading a parsed `config.toml` into Settings, each key checked as it is declared.

The keys, their types, defaults and bounds are declared once, in `ctxchat.config.settings`;
this module reads them all the same way (`_read_table`), and adds the checks that involve
more than one setting. Every key is optional; a key the app does not know is an error,
like a wrong value, so a typo never passes silently. With no file (or a file without
profiles), `OPENAI_API_KEY` and/or `OPENAI_BASE_URL` give a profile named "openai".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ctxchat.config.declare import Declaration, declaration, declarations, keys_of, share_keys
from ctxchat.config.keylines import Key
from ctxchat.config.reader import TableReader
from ctxchat.config.settings import (
    ENGINE_PLACEHOLDER_URL,
    ContextSettings,
    Preset,
    PriceSettings,
    ProviderProfile,
    Settings,
    engine_model_name,
    is_sensitive_header,
)
from ctxchat.core.budget import BudgetError, BudgetShares

OPENAI_API_KEY = "OPENAI_API_KEY"
OPENAI_BASE_URL = "OPENAI_BASE_URL"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
ENV_PROFILE_NAME = "openai"

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Reads a key that the declarations alone cannot: (the table holding it, where it is).
SpecialRead = Callable[[Mapping[str, object], Key], object]


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
    values = _read_table(
        reader,
        data,
        (),
        Settings,
        profiles=lambda table, at: _read_profiles(reader, table, at),
        prices=lambda table, at: _read_prices(reader, table, at),
        presets=lambda table, at: _read_presets(reader, table, at),
    )
    profiles: dict[str, ProviderProfile] = values["profiles"]
    env_profiles: list[str] = []
    if not profiles:
        from_env = env_profile(env)
        if from_env is not None:
            profiles[from_env.name] = from_env
            env_profiles.append(from_env.name)
    named: list[tuple[Key, str | None]] = [
        (("default_profile",), values["default_profile"]),
        (("summary", "profile"), values["summary"].profile),
    ]
    for at, name in named:
        if name and name not in profiles:
            raise reader.error(at, _no_such_profile(name, profiles))
    _check_reserves(reader, profiles, values["context"])
    values["default_profile"] = values["default_profile"] or next(iter(profiles), "")
    return Settings(**values), env_profiles


def _read_table(
    reader: TableReader,
    table: Mapping[str, object],
    at: Key,
    cls: type,
    **special: SpecialRead,
) -> dict[str, Any]:
    """The declared settings of `cls` in `table` (at `at`), by field name; `special` reads
    the fields named there."""
    reader.check_keys(table, at, keys_of(cls))
    values: dict[str, Any] = {}
    for item in declarations(cls):
        where = (*at, item.key)
        read = special.get(item.name)
        values[item.name] = read(table, where) if read else _read(reader, table, where, item)
    return values


def _read(reader: TableReader, table: Mapping[str, object], at: Key, item: Declaration) -> Any:
    kind = item.kind
    if kind == "value":
        return _read_value(reader, table, at, item)
    inner = reader.table(table, at)
    if kind == "section":
        return item.of(**_read_table(reader, inner, at, item.of))
    if kind == "shares":
        return _read_shares(reader, inner, at)
    if kind == "strings":
        return _read_strings(reader, inner, at, item)
    raise TypeError(f"{item.name}: a table of {item.of.__name__} needs a reader of its own")


def _read_value(
    reader: TableReader, table: Mapping[str, object], at: Key, item: Declaration
) -> Any:
    """One value, of the declared type and within the declared bounds."""
    declared, what = item.declared, item.expects()
    if item.required:
        return reader.required_string(table, at, what)
    if item.optional:
        return reader.optional_string(table, at, what=what, secret=declared.secret)
    value: Any
    if item.unset_number:
        if table.get(at[-1]) is None:
            return None
        value = reader.number(table, at, 0.0, what)
    elif item.type is bool:
        value = reader.boolean(table, at, item.default)
    elif item.type is int:
        value = reader.integer(table, at, item.default, what=what)
    elif item.type is float:
        value = reader.number(table, at, item.default, what)
    elif item.choices:
        return reader.choice(table, at, item.default)
    else:
        value = reader.string(table, at, item.default, what=what, secret=declared.secret)
        if declared.nonblank and not value.strip():
            raise reader.expected(at, what, value)
        return value
    if not isinstance(value, bool) and not item.allows(value):
        raise reader.expected(at, what, table[at[-1]])
    return value


def _read_strings(
    reader: TableReader,
    table: Mapping[str, object],
    at: Key,
    item: Declaration,
    secret: Callable[[str], bool] = lambda name: False,
) -> dict[str, str]:
    """A table of strings by name (`secret` says which names hold one)."""
    what = item.expects()
    found: dict[str, str] = {}
    for name in table:
        value = reader.string(table, (*at, name), "", what=what, secret=secret(name))
        if item.declared.nonblank and not value.strip():
            raise reader.expected((*at, name), what, value)
        found[name] = value
    return found


def _no_such_profile(name: str, profiles: Mapping[str, ProviderProfile]) -> str:
    if not profiles:
        return f'no profile named "{name}": no profiles are configured'
    listed = ", ".join(f'"{n}"' for n in profiles)
    return f'no profile named "{name}"; expected one of {listed}'


def _read_profiles(
    reader: TableReader, data: Mapping[str, object], at: Key
) -> dict[str, ProviderProfile]:
    table = reader.table(data, at, like="[profiles.local]")
    profiles: dict[str, ProviderProfile] = {}
    for name in table:
        where: Key = (*at, name)
        if not name.strip():
            raise reader.error(where, "a profile needs a name")
        profiles[name] = _read_profile(reader, reader.table(table, where), where)
    return profiles


def _read_prices(
    reader: TableReader, data: Mapping[str, object], at: Key
) -> dict[str, PriceSettings]:
    """`[prices."MODEL"]` tables: input and output must be given; cached_input left out is
    the input price (a provider without a cache discount)."""
    table = reader.table(data, at, like='[prices."gpt-4o"]')
    prices: dict[str, PriceSettings] = {}
    for name in table:
        where: Key = (*at, name)
        if not name.strip():
            raise reader.error(where, "a price needs a model name")
        entry = reader.table(table, where)
        for needed in ("input", "output"):
            if needed not in entry:
                raise reader.error(where, f"give {needed} (US dollars per million tokens)")
        values = _read_table(reader, entry, where, PriceSettings)
        if "cached_input" not in entry:
            values["cached_input"] = values["input"]
        prices[name] = PriceSettings(**values)
    return prices


def _read_presets(reader: TableReader, data: Mapping[str, object], at: Key) -> dict[str, Preset]:
    table = reader.table(data, at, like="[presets.precise]")
    presets: dict[str, Preset] = {}
    for name in table:
        where: Key = (*at, name)
        if not name.strip():
            raise reader.error(where, "a preset needs a name")
        values = _read_table(reader, reader.table(table, where), where, Preset)
        presets[name] = Preset(name=name, **values)
    return presets


def _read_profile(reader: TableReader, table: dict[str, object], at: Key) -> ProviderProfile:
    headers = declaration(ProviderProfile, "headers")
    engine = table.get("engine")
    if isinstance(engine, str) and engine.strip():
        # The engine gives the server: base_url is its own, the model named after the file.
        defaults = {"base_url": ENGINE_PLACEHOLDER_URL, "model": engine_model_name(engine)}
        table = {**defaults, **table}
    values = _read_table(
        reader,
        table,
        at,
        ProviderProfile,
        headers=lambda parent, where: _read_strings(
            reader, reader.table(parent, where), where, headers, secret=is_sensitive_header
        ),
    )
    if not values["base_url"].startswith(("http://", "https://")):
        what = declaration(ProviderProfile, "base_url").expects()
        raise reader.expected((*at, "base_url"), what, values["base_url"])
    api_key_env = values["api_key_env"]
    if api_key_env is not None and not _ENV_NAME.match(api_key_env):
        raise reader.expected(
            (*at, "api_key_env"),
            "an environment variable name (letters, digits and _), not the key itself",
            api_key_env,
            # Someone may have pasted the key here.
            secret=True,
        )
    if api_key_env and values["api_key"]:
        raise reader.error(
            (*at, "api_key"), "set api_key_env or api_key, not both (api_key_env is set)"
        )
    return ProviderProfile(name=at[-1], **values)


def _read_shares(reader: TableReader, table: dict[str, object], at: Key) -> BudgetShares:
    """`[context.shares]`: each share alone first, so a bad value is reported at its own
    line, then all together (the core's BudgetShares says what is wrong)."""
    keys = share_keys()
    reader.check_keys(table, at, keys)
    defaults = BudgetShares().as_dict()
    what = declaration(ContextSettings, "shares").expects()
    values: dict[str, float] = {}
    for name in keys:
        value = reader.number(table, (*at, name), defaults[name], what)
        try:
            BudgetShares(**(dict.fromkeys(keys, 0.0) | {name: value}))
        except BudgetError as error:
            raise reader.error((*at, name), str(error)) from None
        values[name] = value
    try:
        return BudgetShares(**values)
    except BudgetError as error:
        unset = [name for name in keys if name not in table and defaults[name]]
        note = f" (unset shares keep their defaults: {', '.join(unset)})" if unset else ""
        raise reader.error(at, f"{error}{note}") from None


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
