"""What the commands share: opening the workspace, choosing conversation and profile, printing."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ctxchat.chat.session import ChatSession
from ctxchat.chat.workspace import Workspace, open_workspace, profile_for
from ctxchat.cli.main import EXIT_USAGE
from ctxchat.cli.run import CliError, warn
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.core.memory import Mode
from ctxchat.safe_text import clean


@contextmanager
def workspace(args: argparse.Namespace) -> Iterator[Workspace]:
    opened = open_workspace(config=args.config, data_dir=args.data_dir)
    try:
        for warning in opened.warnings:
            warn(f"warning: {warning}")
        yield opened
    finally:
        opened.close()


def chosen_profile(settings: Settings, args: argparse.Namespace) -> ProviderProfile:
    """The profile to use, with --profile, --model and --base-url applied."""
    profile = profile_for(
        settings,
        name=getattr(args, "profile", None),
        model=getattr(args, "model", None),
        base_url=getattr(args, "base_url", None),
    )
    if profile is None:
        raise CliError(
            "no model server is configured: run `ctxchat config init`, set OPENAI_API_KEY, "
            "or pass --base-url"
        )
    return profile


def conversation_id(
    space: Workspace, args: argparse.Namespace, *, create: bool = False
) -> int | None:
    """--conversation, else the last one used, else the newest (None if there are none)."""
    wanted = getattr(args, "conversation", None)
    if wanted is not None:
        return space.store.get_conversation(wanted).id
    found = space.last_or_latest()
    if found is None and create:
        return space.store.create_conversation().id
    return found


def make_session(
    space: Workspace, args: argparse.Namespace, conversation: int | None, *, connect: bool
) -> ChatSession:
    settings = space.settings
    profile = chosen_profile(settings, args) if (connect or not settings.needs_setup) else None
    if profile is None:
        profile = ProviderProfile(name="none", base_url="", model=getattr(args, "model", "") or "")
    backend = None
    if connect:
        from ctxchat.chat.workspace import make_backend

        backend = make_backend(profile, space.env, settings.model)
    mode = Mode(args.mode) if getattr(args, "mode", None) else space.state.last_mode or None
    return ChatSession(
        space.store,
        settings,
        profile,
        conversation,
        backend=backend,
        mode=Mode(mode) if mode else None,
        secrets=space.secrets,
        env=space.env,
    )


def print_json(data: Any) -> None:
    """`data` as JSON on stdout: exact into a pipe, cleaned (and still exact JSON) on a terminal."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    write_out(text + "\n")


def write_out(text: str) -> None:
    """`text` on stdout as it is, or cleaned of control sequences when stdout is a terminal."""
    sys.stdout.write(clean(text) if sys.stdout.isatty() else text)


def require(value: Any, message: str) -> Any:
    if value is None:
        raise CliError(message, EXIT_USAGE)
    return value
