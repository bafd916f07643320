"""What the conversation pane says to the column that holds it: its messages (each one
`ConversationView.<name>`, handled as `on_conversation_view_<name>`), most of them asking for
something done to the selected (or newest) message."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class CopyRequested(Message, namespace="conversation_view"):
    """Copy a message's text to the clipboard."""

    message_id: int
    text: str


@dataclass
class CopyCodeRequested(Message, namespace="conversation_view"):
    """Copy a code block of a message's text (which one, asked when it has several)."""

    message_id: int
    text: str


@dataclass
class PinRequested(Message, namespace="conversation_view"):
    """Pin a message (or the part of it the user selected) as a memory entry."""

    message_id: int
    text: str


@dataclass
class EditRequested(Message, namespace="conversation_view"):
    """Edit one of the user's messages and send it again."""

    message_id: int


@dataclass
class DetailsRequested(Message, namespace="conversation_view"):
    """Show in full why the interrupted or failed reply `message_id` ended."""

    message_id: int


@dataclass
class ExcludeRequested(Message, namespace="conversation_view"):
    """Leave the message out of the requests (`excluded`), or include it again; with
    `pair`, the question and the answer to it together."""

    message_id: int
    excluded: bool
    pair: bool = False


@dataclass
class RegenerateRequested(Message, namespace="conversation_view"):
    """Replace the last reply with a new one."""


@dataclass
class Left(Message, namespace="conversation_view"):
    """The user pressed Esc here: back to the composer."""


@dataclass
class Highlighted(Message, namespace="conversation_view"):
    """The selected message changed (None: nothing is selected)."""

    message_id: int | None
