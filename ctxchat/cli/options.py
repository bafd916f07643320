"""The parsed command line as the typed options every session is opened with."""

from __future__ import annotations

import argparse

from ctxchat.chat.options import SessionOptions
from ctxchat.core.memory import Mode


def session_options(args: argparse.Namespace) -> SessionOptions:
    """The parsed command line as the options every session is opened with (done once)."""
    mode = getattr(args, "mode", None)
    return SessionOptions(
        config=getattr(args, "config", None),
        data_dir=getattr(args, "data_dir", None),
        conversation=getattr(args, "conversation", None),
        profile=getattr(args, "profile", None),
        model=getattr(args, "model", None),
        preset=getattr(args, "preset", None),
        base_url=getattr(args, "base_url", None),
        mode=Mode(mode) if mode else None,
        offline=bool(getattr(args, "offline", False)),
    )
