"""What the commands share: the options as one typed object, the workspace, the session, output."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.reachability import unreachable_notice
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, NoServer, open_session
from ctxchat.chat.workspace import Workspace, open_workspace
from ctxchat.cli.exits import EXIT_PROVIDER, EXIT_USAGE, CliError
from ctxchat.cli.output import warn, write_out

_T = TypeVar("_T")


def run_async(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """`asyncio.run(coroutine)`, with the result kept out of the main task.

    On exit, Python 3.11's `asyncio.run` checks its SIGINT handler in a way that formats the
    main task's repr, result included (a `ValueError` message it then drops): the plan of a
    20,000-message conversation took longer to format for nothing than to assemble.
    """
    results: list[_T] = []

    async def main() -> None:
        results.append(await coroutine)

    asyncio.run(main())
    return results[0]


@contextmanager
def workspace(options: SessionOptions) -> Iterator[Workspace]:
    opened = open_workspace(config=options.config, data_dir=options.data_dir)
    try:
        for warning in opened.warnings:
            warn(f"warning: {warning}")
        yield opened
    finally:
        opened.close()


def conversation_id(space: Workspace, options: SessionOptions) -> int | None:
    """--conversation, else the last one used, else the newest (None if there are none)."""
    if options.conversation is not None:
        return space.store.conversations.get_conversation(options.conversation).id
    return space.last_or_latest()


def require_conversation(space: Workspace, options: SessionOptions) -> int:
    """The conversation a command changes (see `conversation_id`); one line when there is
    none yet."""
    conversation = conversation_id(space, options)
    if conversation is None:
        raise CliError(
            "there is no conversation yet: start one with `ctxchat send --new`", EXIT_USAGE
        )
    return conversation


def make_session(
    space: Workspace, options: SessionOptions, conversation: int | None, *, connect: Connect
) -> ChatSession:
    """The session a command works with (see `open_session`); no server is one line."""
    try:
        return open_session(space, options, conversation, connect=connect)
    except NoServer as error:
        raise CliError(str(error)) from None


async def require_server(session: ChatSession, space: Workspace) -> None:
    """Stop with one line (exit 3) when nothing answers at the session's server, before
    anything is stored or sent."""
    notice = await unreachable_notice(session, space.loaded.path)
    if notice is not None:
        raise CliError(notice, EXIT_PROVIDER)


def print_json(data: Any) -> None:
    """`data` as JSON on stdout: exact into a pipe, cleaned (and still exact JSON) on a terminal."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    write_out(text + "\n")


def require(value: Any, message: str) -> Any:
    if value is None:
        raise CliError(message, EXIT_USAGE)
    return value
