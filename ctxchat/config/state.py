"""The app-owned state file: what the app remembers between runs, kept apart from the user's config.

Unlike `config.toml`, the app writes this file whenever it likes (atomically, mode 0600),
and reading it never fails: a missing file is a first run, a damaged one is set aside with
a warning and the defaults are used.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ctxchat.config.files import write_private_file
from ctxchat.config.server_facts import ServerFacts, read_facts
from ctxchat.core.memory import Mode

STATE_VERSION = 1
# Known per-server facts (others may be added freely: any name maps to a TOML scalar).
REJECTS_STREAM_OPTIONS = "rejects_stream_options"
"""The server answers 400 to `stream_options`, so usage is not requested while streaming."""
DETECTED_CONTEXT_WINDOW = "context_window"
"""The context window the server reported for its model."""

StateValue = bool | int | float | str
_Dropped = Callable[[str, object], None]
_URL_USERINFO = re.compile(r"(?<=//)[^/@\s]*@")


def server_key(base_url: str) -> str:
    """How a server is named in the state file: its URL without credentials or a trailing slash."""
    return _URL_USERINFO.sub("", base_url.strip()).rstrip("/")


@dataclass(frozen=True, slots=True)
class AppState:
    """What the app remembers between runs."""

    last_mode: Mode | None = None
    """The mode last chosen in the app (None = the config's default_mode)."""
    theme: str | None = None
    """The theme last chosen in the app (None = the config's theme)."""
    last_conversation_id: int | None = None
    """The conversation open when the app last closed."""
    servers: Mapping[str, Mapping[str, StateValue]] = field(default_factory=dict)
    """Facts learnt about each server, by `server_key(base_url)`."""
    server_facts: Mapping[str, Mapping[str, ServerFacts]] = field(default_factory=dict)
    """What probing found, by `server_key(base_url)`, then by model."""
    drafts: Mapping[int, str] = field(default_factory=dict)
    """The unsent text left in the composer when the app ended, by conversation."""

    def facts_for(self, base_url: str, model: str) -> ServerFacts | None:
        """The cached facts of `model` on the server at `base_url`, if any."""
        return self.server_facts.get(server_key(base_url), {}).get(model)

    def with_facts(self, base_url: str, model: str, facts: ServerFacts) -> AppState:
        key = server_key(base_url)
        models = {**self.server_facts.get(key, {}), model: facts}
        return dataclasses.replace(self, server_facts={**self.server_facts, key: models})

    def server_fact(self, base_url: str, name: str) -> StateValue | None:
        return self.servers.get(server_key(base_url), {}).get(name)

    def with_server_fact(self, base_url: str, name: str, value: StateValue) -> AppState:
        key = server_key(base_url)
        facts = {**self.servers.get(key, {}), name: value}
        return dataclasses.replace(self, servers={**self.servers, key: facts})


@dataclass(frozen=True, slots=True)
class LoadedState:
    """The state read from disk and anything about the file worth telling the user."""

    state: AppState
    warnings: tuple[str, ...] = ()


def load_state(path: Path) -> LoadedState:
    """Read the state file; never raises: problems become defaults plus a warning."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return LoadedState(AppState())
    except (OSError, UnicodeDecodeError) as error:
        return LoadedState(
            AppState(), (f"state file {path} could not be read ({error}); using defaults",)
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return LoadedState(AppState(), (f"state file {path} is damaged ({error}); using defaults",))
    warnings: list[str] = []

    def dropped(key: str, value: object) -> None:
        warnings.append(f"state file {path}: ignored {key} = {value!r}")

    last_mode = data.get("last_mode")
    if last_mode is not None and last_mode not in {m.value for m in Mode}:
        dropped("last_mode", last_mode)
        last_mode = None
    theme = data.get("theme")
    if theme is not None and not (isinstance(theme, str) and theme):
        dropped("theme", theme)
        theme = None
    conversation = data.get("last_conversation_id")
    if conversation is not None and (
        isinstance(conversation, bool) or not isinstance(conversation, int)
    ):
        dropped("last_conversation_id", conversation)
        conversation = None
    return LoadedState(
        AppState(
            last_mode=Mode(last_mode) if last_mode is not None else None,
            theme=theme,
            last_conversation_id=conversation,
            servers=_read_servers(data.get("servers"), dropped),
            server_facts=_read_server_facts(data.get("server_facts"), dropped),
            drafts=_read_drafts(data.get("drafts"), dropped),
        ),
        tuple(warnings),
    )


def _read_servers(value: object, dropped: _Dropped) -> dict[str, dict[str, StateValue]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        dropped("servers", value)
        return {}
    servers: dict[str, dict[str, StateValue]] = {}
    for url, facts in value.items():
        if not isinstance(facts, dict):
            dropped(f"servers.{url}", facts)
            continue
        kept: dict[str, StateValue] = {}
        for name, fact in facts.items():
            if isinstance(fact, bool | int | float | str):
                kept[name] = fact
            else:
                dropped(f"servers.{url}.{name}", fact)
        servers[url] = kept
    return servers


def _read_drafts(value: object, dropped: _Dropped) -> dict[int, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        dropped("drafts", value)
        return {}
    drafts: dict[int, str] = {}
    for conversation, text in value.items():
        if conversation.isascii() and conversation.isdigit() and isinstance(text, str):
            drafts[int(conversation)] = text
        else:
            dropped(f"drafts.{conversation}", text)
    return drafts


def _read_server_facts(value: object, dropped: _Dropped) -> dict[str, dict[str, ServerFacts]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        dropped("server_facts", value)
        return {}
    return {str(url): read_facts(models, dropped) for url, models in value.items()}


def state_to_toml(state: AppState) -> str:
    """The state as TOML (None values are left out: TOML has no null)."""
    import tomli_w  # only needed when writing

    data: dict[str, object] = {"version": STATE_VERSION}
    if state.last_mode is not None:
        data["last_mode"] = state.last_mode.value
    if state.theme is not None:
        data["theme"] = state.theme
    if state.last_conversation_id is not None:
        data["last_conversation_id"] = state.last_conversation_id
    if state.servers:
        data["servers"] = {url: dict(facts) for url, facts in state.servers.items()}
    if state.server_facts:
        data["server_facts"] = {
            url: {model: facts.to_toml() for model, facts in models.items()}
            for url, models in state.server_facts.items()
        }
    if state.drafts:
        data["drafts"] = {str(conversation): text for conversation, text in state.drafts.items()}
    header = "# ctxchat's own state, rewritten by the app; settings belong in config.toml.\n"
    return header + tomli_w.dumps(data)


def save_state(path: Path, state: AppState) -> None:
    """Write the state atomically (temp file + rename), mode 0600; raises OSError."""
    write_private_file(path, state_to_toml(state), overwrite=True)
