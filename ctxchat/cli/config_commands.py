"""`ctxchat config init|show|path`."""

from __future__ import annotations

import argparse
import os

from ctxchat.chat.options import SessionOptions
from ctxchat.cli.common import print_json
from ctxchat.cli.confirm import confirm
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import say, warn
from ctxchat.config.loader import LoadedSettings, load_settings
from ctxchat.config.locations import Locations


def config_command(args: argparse.Namespace, options: SessionOptions) -> int:
    locations = Locations.resolve(config=options.config, data=options.data_dir)
    action = args.config_command
    if action == "path":
        for name, value in locations.as_dict().items():
            say(f"{name}: {value}")
        return 0
    if action == "init":
        from ctxchat.config.template import write_initial_config

        path = locations.config_file
        if path.exists() and not args.force:
            raise CliError(f"{path} already exists; pass --force to replace it", EXIT_USAGE)
        if path.exists() and not confirm(f"Replace {path}? Its contents will be lost."):
            raise CliError(f"{path} was left as it is", EXIT_USAGE)
        written = write_initial_config(path, force=args.force)
        say(f"Wrote {written} (mode 0600). Edit it, then run `ctxchat`.")
        return 0
    from ctxchat.config.report import settings_report

    loaded = load_settings(
        locations.config_file, dict(os.environ), required=options.config is not None
    )
    from ctxchat.config.state import load_state

    state = load_state(locations.state_file)
    report = settings_report(loaded, dict(os.environ), state.state)
    names = _check_names(loaded, locations)
    if names or state.warnings:
        report["warnings"] = [*loaded.warnings, *state.warnings, *names]
    for line in names:
        warn(f"warning: {line}")
    print_json(report)
    return 0


def _check_names(loaded: LoadedSettings, locations: Locations) -> list[str]:
    """The config's theme and key remaps against what the app has (this loads the TUI's parts)."""
    from ctxchat.tui.app import check_config_names
    from ctxchat.tui.themes import theme_names

    return check_config_names(loaded, theme_names(locations.themes_dir)).lines
