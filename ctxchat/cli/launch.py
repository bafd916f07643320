"""Starting the TUI from the command line."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxchat.chat.options import SessionOptions
    from ctxchat.chat.workspace import Workspace


def launch_tui(options: SessionOptions, *, theme: str | None = None) -> int:
    from ctxchat.chat.session_factory import resolve_profile
    from ctxchat.chat.workspace import open_workspace

    workspace = open_workspace(config=options.config, data_dir=options.data_dir)
    try:
        profile = resolve_profile(workspace.settings, options)
        if profile is not None:
            preload_tokenizer_if_needed(workspace, profile.model)
        from ctxchat.tui.app import run_app
        from ctxchat.tui.textual_compat.input_bytes import replace_undecodable_input

        replace_undecodable_input()
        return run_app(workspace, options, theme=theme)
    finally:
        workspace.close()


def preload_tokenizer_if_needed(workspace: Workspace, model: str) -> bool:
    """Start loading `model`'s tokenizer now if the first plan will need it; whether it did.

    With no counts kept from an earlier run, the first plan needs the tokenizer: it loads
    in a thread while the UI's modules import. With kept counts it loads after the first
    frame, instead of competing with the start for the interpreter.
    """
    from ctxchat.core.tokens import encoding_for_model, preload_counter

    if workspace.store.counts.has_kept_counts(encoding_for_model(model).encoding):
        return False
    preload_counter(model)
    return True
