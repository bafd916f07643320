"""Starting the TUI from the command line."""

from __future__ import annotations

import argparse


def launch_tui(args: argparse.Namespace) -> int:
    from ctxchat.tui.app import run_app

    return run_app(args)
