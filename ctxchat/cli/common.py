"""What the commands share: the options as one typed object, the workspace, the session, output."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, NoServer, open_session
from ctxchat.chat.workspace import Workspace, open_workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError


@contextmanager
def workspace(options: SessionOptions) -> Iterator[Workspace]:
    opened = open_workspace(config=options.config, data_dir=options.data_dir)
    try:
        for warning in opened.warnings:
            print(f"ctxchat: warning: {warning}", file=sys.stderr)
        yield opened
    finally:
        opened.close()


def conversation_id(space: Workspace, options: SessionOptions) -> int | None:
    """--conversation, else the last one used, else the newest (None if there are none)."""
    if options.conversation is not None:
        return space.store.get_conversation(options.conversation).id
    return space.last_or_latest()


def make_session(
    space: Workspace, options: SessionOptions, conversation: int | None, *, connect: Connect
) -> ChatSession:
    """The session a command works with (see `open_session`); no server is one line."""
    try:
        return open_session(space, options, conversation, connect=connect)
    except NoServer as error:
        raise CliError(str(error)) from None


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def require(value: Any, message: str) -> Any:
    if value is None:
        raise CliError(message, EXIT_USAGE)
    return value
