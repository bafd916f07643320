"""`ctxchat ask-again`, `ctxchat replay`, `ctxchat variants` and `ctxchat keep-variant`: a
reply's request asked again with a change, stored as a variant of the reply; keeping one
continues from it."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from typing import Any

from ctxchat.chat.ask_again import (
    AskAgainError,
    PreparedVariant,
    VariantFailed,
    VariantFinished,
    VariantStarted,
    ask_again,
    prepare_variant,
)
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import Connect, follows_choice
from ctxchat.chat.turn import ReplyDelta
from ctxchat.chat.workspace import Workspace
from ctxchat.cli.common import make_session, print_json, run_async, workspace
from ctxchat.cli.exits import EXIT_PROVIDER, EXIT_USAGE, CliError
from ctxchat.cli.output import say, warn, write_out
from ctxchat.core.counterfactual import Change, CounterfactualError, parse_without
from ctxchat.safe_text import clean
from ctxchat.store import Conversation


def ask_again_command(args: argparse.Namespace, options: SessionOptions) -> int:
    """`ask-again REPLY_ID --without …` and `replay REPLY_ID`."""
    try:
        without = tuple(parse_without(spec) for spec in getattr(args, "without", None) or ())
    except CounterfactualError as error:
        raise CliError(str(error), EXIT_USAGE) from None
    replay = args.command == "replay"
    with workspace(options) as space:
        reply = space.store.messages.get_message(args.reply_id)  # NotFound: one clear line
        conversation = space.store.conversations.get_conversation(reply.conversation_id)
        chosen = _follows_choice(space, options, conversation)
        session = _session_for_reply(space, options, conversation, chosen=chosen)
        # The model chosen for the conversation is a change from the reply's own, said so.
        differs = chosen and session.model != reply.model
        change = Change(
            without=without,
            mode=None if replay else options.mode,
            model=options.model or (session.model if differs else None),
            profile=options.profile,
            replay=replay,
        )
        try:
            prepared = prepare_variant(session, args.reply_id, change)
        except AskAgainError as error:
            raise CliError(str(error), EXIT_USAGE) from None
        return run_async(_send(session, prepared, args))


def keep_variant_command(args: argparse.Namespace, options: SessionOptions) -> int:
    """`keep-variant VARIANT_ID`: the variant becomes the reply, the reply a variant."""
    with workspace(options) as space:
        reply = space.store.variants.keep_variant(args.variant_id)
        if args.json:
            print_json({"reply_id": reply.id, "content": reply.content, "model": reply.model})
        else:
            say(
                f"Reply {reply.id} is now variant {args.variant_id}'s answer; the former "
                f"answer is kept as variant {args.variant_id}."
            )
        return 0


def variants_command(args: argparse.Namespace, options: SessionOptions) -> int:
    """`variants REPLY_ID`: what changed, model, tokens and when, oldest first."""
    with workspace(options) as space:
        space.store.messages.get_message(args.reply_id)  # NotFound: one clear line
        variants = space.store.variants.variants(args.reply_id)
        if args.json:
            listed = [v.to_dict() | {"length": v.length.to_dict()} for v in variants]
            print_json({"reply_id": args.reply_id, "variants": listed})
            return 0
        if not variants:
            say(f"Reply {args.reply_id} has no variants.")
        for variant in variants:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(variant.created_at))
            say(
                f"{variant.id:>5}  {when}  {clean(variant.model or '?')}  "
                f"{variant.length.describe()}  {variant.status.value}  {clean(variant.change)}"
            )
        return 0


def _session_for_reply(
    space: Workspace, options: SessionOptions, conversation: Conversation, *, chosen: bool
) -> ChatSession:
    """A session on the reply's conversation: with the profile and model `chosen` for it
    (F4, applied by `open_session`), else with the profile it started with, unless the
    options name another."""
    profile = options.profile
    if profile is None and not chosen and conversation.profile in space.settings.profiles:
        profile = conversation.profile
    options = dataclasses.replace(options, profile=profile, conversation=conversation.id)
    return make_session(space, options, conversation.id, connect=Connect.MUST)


def _follows_choice(space: Workspace, options: SessionOptions, conversation: Conversation) -> bool:
    """Whether the conversation's chosen profile or model applies (`conversation_profile`):
    one was chosen, its profile is still configured, and the command line names no other
    (as for `send` and `context`)."""
    chosen = follows_choice(space.settings, conversation)
    return chosen and not (options.profile or options.model or options.base_url)


async def _send(session: ChatSession, prepared: PreparedVariant, args: argparse.Namespace) -> int:
    result: dict[str, Any] = {
        "reply": {"id": prepared.reply.id, "content": prepared.reply.content},
        "change": prepared.change.describe(),
        "diff": prepared.diff(),
    }
    if args.diff and not args.json:
        for line in result["diff"]:
            say(clean(line))
        say("")
    code = 0
    try:
        async for event in ask_again(session, prepared):
            if isinstance(event, VariantStarted):
                result["plan"] = event.plan.to_dict()
            elif isinstance(event, ReplyDelta) and not args.json and event.text:
                write_out(event.text)
                sys.stdout.flush()
            elif isinstance(event, VariantFinished | VariantFailed):
                variant = event.variant
                result["variant"] = variant.to_dict() | {"length": variant.length.to_dict()}
                if not args.json and variant.content and not variant.content.endswith("\n"):
                    sys.stdout.write("\n")
                if isinstance(event, VariantFinished) and event.notice:
                    warn(event.notice)
                if isinstance(event, VariantFailed):
                    result["error"] = {"kind": event.error.kind.value, "message": str(event.error)}
                    warn(str(event.error))
                    code = EXIT_PROVIDER
                warn(
                    f"stored as variant {variant.id} of reply {variant.reply_id} "
                    f"({variant.change}); keep it with `ctxchat keep-variant {variant.id}`."
                )
    finally:
        await session.aclose()
    if args.json:
        print_json(result)
    return code
