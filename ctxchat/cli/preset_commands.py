"""`ctxchat presets` and `ctxchat system-prompt`: the presets, and a conversation's prompt."""

from __future__ import annotations

import argparse

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect
from ctxchat.cli.common import conversation_id, make_session, print_json, workspace
from ctxchat.cli.exits import EXIT_USAGE, CliError
from ctxchat.cli.output import say, tell
from ctxchat.cli.tables import cell, console, table
from ctxchat.config.settings import Preset


def _unset(value: object) -> str:
    return "-" if value is None or value == 0 else str(value)


def list_presets(args: argparse.Namespace, options: SessionOptions) -> int:
    """Every configured preset, the conversation's marked (`--conversation`, else the last)."""
    with workspace(options) as space:
        presets = list(space.settings.presets.values())
        conversation = conversation_id(space, options)
        chosen = (
            options.preset
            if options.preset is not None or conversation is None
            else space.store.conversations.get_conversation(conversation).preset
        )
    if args.json:
        print_json(
            {
                "conversation_id": conversation,
                "chosen": chosen,
                "presets": {preset.name: _preset_dict(preset) for preset in presets},
            }
        )
        return 0
    if not presets:
        say("No presets: add a [presets.NAME] table to the config (`ctxchat config path`).")
        return 0
    grid = table("", "name", "model", "temperature", "top_p", "max tokens", "system prompt")
    for preset in presets:
        grid.add_row(
            "*" if preset.name == chosen else "",
            cell(preset.name),
            cell(_unset(preset.model)),
            _unset(preset.temperature),
            _unset(preset.top_p),
            _unset(preset.max_output_tokens),
            cell(_unset(preset.system_prompt)),
        )
    console().print(grid)
    return 0


def _preset_dict(preset: Preset) -> dict[str, object]:
    return {
        "system_prompt": preset.system_prompt,
        "model": preset.model,
        "temperature": preset.temperature,
        "top_p": preset.top_p,
        "max_output_tokens": preset.max_output_tokens,
    }


def system_prompt_command(args: argparse.Namespace, options: SessionOptions) -> int:
    """Show the conversation's system prompt, give it its own (TEXT), or drop it (--clear)."""
    if args.clear and args.text is not None:
        raise CliError("give the prompt or --clear, not both", EXIT_USAGE)
    with workspace(options) as space:
        conversation = conversation_id(space, options)
        if conversation is None:
            raise CliError("there is no conversation yet: start one with `ctxchat send`")
        session = make_session(space, options, conversation, connect=Connect.NO)
        if args.clear:
            session.set_system_prompt(None)
            tell(f"Conversation {conversation} uses {session.system_prompt_source} again.")
        elif args.text is not None:
            session.set_system_prompt(args.text)
            tell(f"Conversation {conversation} has its own system prompt now.")
        else:
            prompt, source = session.system_prompt, session.system_prompt_source
            if args.json:
                print_json(
                    {
                        "conversation_id": conversation,
                        "system_prompt": prompt,
                        "own": session.own_system_prompt is not None,
                        "preset": session.preset_name,
                        "source": source,
                    }
                )
            else:
                tell(f"From {source}:")
                say(prompt if prompt else "(none: no system message is sent)")
    return 0
