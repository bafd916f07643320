"""Starting the TUI from the command line."""

from __future__ import annotations

import argparse


def launch_tui(args: argparse.Namespace) -> int:
    from ctxchat.chat.workspace import open_workspace, profile_for
    from ctxchat.core.tokens import preload_counter

    workspace = open_workspace(config=args.config, data_dir=args.data_dir)
    try:
        profile = profile_for(
            workspace.settings, name=args.profile, model=args.model, base_url=args.base_url
        )
        if profile is not None:
            # The tokenizer loads in a thread while the UI's modules import.
            preload_counter(profile.model)
        from ctxchat.tui.app import run_app

        return run_app(args, workspace)
    finally:
        workspace.close()
