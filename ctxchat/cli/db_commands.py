"""`ctxchat db move-aside`: rename a damaged database, only with the user's consent."""

from __future__ import annotations

import argparse
import sys

from ctxchat.chat.options import SessionOptions
from ctxchat.cli.confirm import confirm
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import say
from ctxchat.config.locations import Locations
from ctxchat.store import CorruptDatabase, Store, move_aside


def db_command(args: argparse.Namespace, options: SessionOptions) -> int:
    path = Locations.resolve(config=options.config, data=options.data_dir).database
    if not path.exists():
        raise CliError(f"there is no database at {path}", EXIT_USAGE)
    try:
        Store.open(path).close()
    except CorruptDatabase:
        pass
    else:
        raise CliError(f"{path} opens fine; it was left where it is", EXIT_USAGE)
    if not args.yes:
        if not sys.stdin.isatty():
            raise CliError("pass --yes to move the damaged database aside", EXIT_USAGE)
        if not confirm(f"Move the damaged {path} aside and start a new database?"):
            raise CliError(f"{path} was left where it is", EXIT_USAGE)
    target = move_aside(path)
    say(f"Moved {path} to {target}; the next start creates a new database.")
    return 0
