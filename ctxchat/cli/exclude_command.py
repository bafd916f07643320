"""`ctxchat exclude MESSAGE_ID` / `ctxchat include MESSAGE_ID`: leave a turn out of the
requests without deleting it, or send it again; says what that does to the next request."""

from __future__ import annotations

import argparse

from ctxchat.chat.exclusions import change_exclusion
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect
from ctxchat.cli.common import make_session, print_json, workspace


def exclude_command(args: argparse.Namespace, options: SessionOptions) -> int:
    with workspace(options) as space:
        # The message names its conversation.
        conversation = space.store.messages.get_message(args.message_id).conversation_id
        session = make_session(space, options, conversation, connect=Connect.NO)
        change = change_exclusion(
            session, args.message_id, excluded=args.command == "exclude", pair=args.pair
        )
    if getattr(args, "json", False):
        print_json(change.to_dict())
    else:
        print(change.describe())
    return 0
