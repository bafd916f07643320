"""Reading `config.toml` (and the OpenAI environment variables) into validated Settings.

The file is the user's: it is only read here, never rewritten (its keys are declared in
`ctxchat.config.settings`). Every problem is a ConfigError naming the file, line and key.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ctxchat.config.errors import ConfigError
from ctxchat.config.locations import config_path
from ctxchat.config.reader import TableReader
from ctxchat.config.schema import OPENAI_API_KEY, default_settings, read_settings
from ctxchat.config.settings import Settings, is_sensitive_header
from ctxchat.redaction import redact

_DECODE_POSITION = re.compile(
    r"^(?P<message>.*?) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)$"
)


@dataclass(frozen=True, slots=True)
class LoadedSettings:
    """Settings, the file they came from, warnings to show, and where each setting came from."""

    settings: Settings
    """The validated, effective settings."""
    path: Path | None
    """The config file read, or None when there was none."""
    warnings: tuple[str, ...] = ()
    """Problems worth telling the user that do not stop the app (e.g. a readable key file)."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """Dotted key → "file" or "env"; a key not listed has its default."""

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")


def load_settings(
    path: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    required: bool = False,
) -> LoadedSettings:
    """Read and validate the config file (default: `config_path()`); raises ConfigError.

    A missing file gives the defaults unless `required` (an explicit `--config`).
    """
    env = os.environ if env is None else env
    path = config_path(env=env) if path is None else path
    try:
        with open(path, "rb") as file:
            data = file.read()
            mode = os.fstat(file.fileno()).st_mode
    except FileNotFoundError:
        if required:
            raise ConfigError("no such file", path=path) from None
        return _from_environment(env)
    except OSError as error:
        raise ConfigError(f"cannot be read: {error.strerror or error}", path=path) from None
    loaded = parse_settings(_decode(data, path), env, path=path)
    warning = _permission_warning(path, mode, loaded.settings)
    if warning:
        return LoadedSettings(
            loaded.settings, loaded.path, (*loaded.warnings, warning), loaded.sources
        )
    return loaded


def _from_environment(env: Mapping[str, str]) -> LoadedSettings:
    settings = default_settings(env)
    return LoadedSettings(
        settings,
        None,
        sources={f"profiles.{name}": "env" for name in settings.profiles},
    )


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ConfigError("not UTF-8 text", path=path, line=line) from None


def _permission_warning(path: Path, mode: int, settings: Settings) -> str | None:
    if os.name == "nt" or not any(p.api_key for p in settings.profiles.values()):
        return None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return (
            f"{path} holds an API key but other users can read it "
            f"(mode {stat.S_IMODE(mode):04o}); run: chmod 600 {path}"
        )
    return None


def parse_settings(
    text: str, env: Mapping[str, str], *, path: Path | None = None
) -> LoadedSettings:
    """Validate the text of a config file (`path` is used in messages); raises ConfigError."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise _syntax_error(error, path, text, _raw_secrets({}, env)) from None
    secrets = _raw_secrets(data, env)
    reader = TableReader(path, text, secrets)
    settings, env_profiles = read_settings(reader, data, env)
    sources = dict.fromkeys(sorted(reader.from_file), "file")
    for name in settings.profiles:
        sources[f"profiles.{name}"] = "env" if name in env_profiles else "file"
    for name in settings.presets:
        sources[f"presets.{name}"] = "file"
    return LoadedSettings(settings, path, sources=sources)


def _syntax_error(
    error: tomllib.TOMLDecodeError, path: Path | None, text: str, secrets: list[str]
) -> ConfigError:
    message = str(error)
    line: int | None = None
    column: int | None = None
    match = _DECODE_POSITION.match(message)
    if match:
        message = match.group("message")
        if match.group("line"):
            line, column = int(match.group("line")), int(match.group("column"))
        else:
            line = text.count("\n") + 1
    message = message[:1].lower() + message[1:]
    return ConfigError(
        f"invalid TOML: {redact(message, secrets)}", path=path, line=line, column=column
    )


def _raw_secrets(data: dict[str, object], env: Mapping[str, str]) -> list[str]:
    """Keys in the file and the environment, gathered before validation so no message shows one."""
    found = [env.get(OPENAI_API_KEY, "")]
    profiles = data.get("profiles")
    tables = list(profiles.values()) if isinstance(profiles, dict) else []
    for profile in tables:
        if not isinstance(profile, dict):
            continue
        key, variable, headers = (profile.get(k) for k in ("api_key", "api_key_env", "headers"))
        if isinstance(key, str):
            found.append(key)
        if isinstance(variable, str) and variable:
            found.append(env.get(variable, ""))
        if isinstance(headers, dict):
            found.extend(
                value
                for name, value in headers.items()
                if isinstance(value, str) and is_sensitive_header(name)
            )
    return [secret.strip() for secret in found if secret.strip()]
