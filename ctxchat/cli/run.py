"""Run a parsed command: open what it needs, turn every known failure into one line."""

from __future__ import annotations

import argparse

from ctxchat.cli.exits import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_PROVIDER, EXIT_USAGE, CliError
from ctxchat.cli.options import session_options
from ctxchat.cli.output import warn


def fail(message: str) -> int:
    warn(message)
    return EXIT_ERROR


def run(args: argparse.Namespace) -> int:
    from ctxchat.chat.session import OverBudget
    from ctxchat.config.errors import ConfigError, MissingApiKey, UnknownPreset, UnknownProfile
    from ctxchat.core.budget import BudgetError
    from ctxchat.engine.errors import EngineError
    from ctxchat.model.errors import ProviderError
    from ctxchat.store import InvalidValue, NotFound, StoreError

    try:
        return _dispatch(args)
    except CliError as error:
        fail(str(error))
        return error.code
    except (NotFound, OverBudget, InvalidValue) as error:
        fail(str(error))
        return EXIT_USAGE
    except ProviderError as error:
        fail(str(error))
        return EXIT_PROVIDER
    except (
        ConfigError,
        MissingApiKey,
        UnknownProfile,
        UnknownPreset,
        StoreError,
        BudgetError,
        EngineError,
    ) as error:
        return fail(str(error))
    except KeyboardInterrupt:
        warn("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (`| head`): nothing more to say.
        return 0


def _dispatch(args: argparse.Namespace) -> int:
    command = args.command
    options = session_options(args)
    if command is None:
        from ctxchat.cli.launch import launch_tui

        return launch_tui(options, theme=args.theme)
    if command == "config":
        from ctxchat.cli.config_commands import config_command

        return config_command(args, options)
    if command == "engine":
        from ctxchat.cli.engine_commands import engine_command

        return engine_command(args, options)
    if command == "db":
        from ctxchat.cli.db_commands import db_command

        return db_command(args, options)
    if command == "conversations":
        from ctxchat.cli.conversation_commands import list_conversations

        return list_conversations(args, options)
    if command == "delete":
        from ctxchat.cli.delete_command import delete_conversation

        return delete_conversation(args, options)
    if command == "export":
        from ctxchat.cli.conversation_commands import export_conversation

        return export_conversation(args, options)
    if command == "import":
        from ctxchat.cli.import_command import import_history

        return import_history(args, options)
    if command == "context":
        from ctxchat.cli.context_command import show_context

        return show_context(args, options)
    if command in ("presets", "system-prompt"):
        from ctxchat.cli.preset_commands import list_presets, system_prompt_command

        if command == "presets":
            return list_presets(args, options)
        return system_prompt_command(args, options)
    if command == "memory":
        from ctxchat.cli.memory_commands import memory_command

        return memory_command(args, options)
    if command == "project":
        from ctxchat.cli.project_commands import project_command

        return project_command(args, options)
    if command == "send":
        from ctxchat.cli.send_command import send

        return send(args, options)
    if command == "summary":
        from ctxchat.cli.summary_command import summary_command

        return summary_command(args, options)
    if command == "summarize":
        from ctxchat.cli.summarize_command import summarize

        return summarize(args, options)
    if command in ("ask-again", "replay", "keep-variant", "variants"):
        from ctxchat.cli.ask_again_command import (
            ask_again_command,
            keep_variant_command,
            variants_command,
        )

        if command == "variants":
            return variants_command(args, options)
        if command == "keep-variant":
            return keep_variant_command(args, options)
        return ask_again_command(args, options)
    if command in ("exclude", "include"):
        from ctxchat.cli.exclude_command import exclude_command

        return exclude_command(args, options)
    if command == "task":
        from ctxchat.cli.task_command import task_command

        return task_command(args, options)
    if command in ("attach", "detach", "files"):
        from ctxchat.cli.files_command import files_command

        return files_command(args, options)
    if command == "costs":
        from ctxchat.cli.cost_command import cost_command

        return cost_command(args, options)
    raise CliError(f"unknown command {command!r}", EXIT_USAGE)
