"""What F4's changes to the profiles write, and how the run takes them in: a server added or
fixed in the setup's form, a model file loaded in the engine, a profile removed."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from ctxchat.config.loader import load_settings
from ctxchat.config.schema import OPENAI_DEFAULT_BASE_URL
from ctxchat.config.settings import ProviderProfile, engine_model_name
from ctxchat.tui.views import ServerView

if TYPE_CHECKING:  # F4's changes load when made, not with the app
    from ctxchat.chat.session import ChatSession
    from ctxchat.chat.workspace import Workspace
    from ctxchat.config.profile_edit import ProfileValues
    from ctxchat.engine.found import FoundModel
    from ctxchat.tui.screens.setup import SetupChoice


async def found_servers() -> list[ServerView]:
    """The model servers answering on this machine's usual ports (Ollama, LM Studio,
    llama.cpp…)."""
    from ctxchat.model.discovery import probe_local_servers

    try:
        found = await probe_local_servers()
    except OSError:
        return []
    return [ServerView(s.kind, s.base_url, s.models, s.needs_key) for s in found]


def config_file(workspace: Workspace) -> Path:
    """The config file the run read (`--config` included), or where it would be."""
    return workspace.loaded.path or workspace.locations.config_file


def unused_name(wanted: str, taken: Collection[str]) -> str:
    """`wanted`, or `wanted-2`, `wanted-3`… the first no profile has."""
    base = re.sub(r"[^a-z0-9_-]+", "-", wanted.lower()).strip("-")[:40] or "server"
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}-{number}"
    return name


def server_values(choice: SetupChoice, fixing: ProviderProfile | None) -> ProfileValues:
    """The keys a profile gets from the setup's answer. A stored key stays when none was
    typed in its place; an engine profile fixed into a server's stops being one."""
    values: dict[str, str | None] = {
        "base_url": choice.base_url or OPENAI_DEFAULT_BASE_URL,
        "model": choice.model,
        "engine": None,
        "api_key_env": choice.api_key_env,
    }
    if choice.api_key and choice.store_key:
        values["api_key"] = choice.api_key
        values["api_key_env"] = None
    elif choice.api_key or choice.api_key_env or fixing is None or not fixing.api_key:
        values["api_key"] = None
    return values


def server_name(choice: SetupChoice, fixing: ProviderProfile | None, taken: Collection[str]) -> str:
    """The profile the answer goes to: the one fixed, else a new one named for the server."""
    if fixing is not None:
        return fixing.name
    return unused_name(choice.provider if choice.provider != "custom" else "server", taken)


def file_profile(
    found: FoundModel, profiles: Collection[ProviderProfile]
) -> tuple[str, ProfileValues]:
    """The profile that runs `found` in the engine: one that already does, else a new one
    named for the file; with the keys it needs."""
    values: ProfileValues = {"engine": str(found.path), "model": engine_model_name(str(found.path))}
    for profile in profiles:
        if profile.engine and Path(profile.engine).expanduser() == found.path:
            return profile.name, values
    return unused_name(found.name, [p.name for p in profiles]), values


def take_in_profiles(workspace: Workspace, session: ChatSession | None, fixed: str | None) -> None:
    """Read the config's profiles again (raises ConfigError) and give them to the run and
    the session on screen; the run's other settings stay as they were read at start. The
    run's default profile, when it is the one `fixed`, is taken as now configured (a server
    the command line gave it is let go: the user fixed it)."""
    loaded = load_settings(config_file(workspace), workspace.env)
    profiles = loaded.settings.profiles
    settings = dataclasses.replace(workspace.settings, profiles=profiles)
    workspace.loaded = dataclasses.replace(workspace.loaded, settings=settings, path=loaded.path)
    if session is None:
        return
    session.settings = dataclasses.replace(session.settings, profiles=profiles)
    if fixed is not None and fixed == session.default_profile.name and fixed in profiles:
        session.choice.default_profile = configured(workspace, fixed)


def configured(workspace: Workspace, name: str) -> ProviderProfile:
    """Profile `name` as the config has it now, an engine profile's with its engine's URL."""
    from ctxchat.engine.profiles import with_engine_url

    return with_engine_url(workspace.locations.engine_dir, workspace.settings.profile(name))
