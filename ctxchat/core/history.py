"""The conversation as the core sees it: stored messages with their counts, and the summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ctxchat.core.budget import Layer


class MessageStatus(StrEnum):
    COMPLETE = "complete"
    STREAMING = "streaming"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class HistoryMessage:
    """A stored message and its token count (counted once, when it was stored).

    `tokens` is what the message costs in a request: overhead + role + content.
    `excluded`: the user left it out of the requests (it is kept, searched and shown, but
    never sent, recalled, summarized or read for facts until included again).
    """

    id: int
    role: str
    content: str
    tokens: int
    status: MessageStatus = MessageStatus.COMPLETE
    excluded: bool = False
    # Worked out once here, because assembly checks it for every message on every turn.
    sendable: bool = field(init=False, compare=False)

    def __post_init__(self) -> None:
        # Failed replies (and replies still arriving) carry nothing the model should see.
        # `isspace` stops at the first visible character; `strip` would copy the whole text.
        content = self.content
        sendable = (
            not self.excluded
            and self.status not in (MessageStatus.FAILED, MessageStatus.STREAMING)
            and (self.role == "user" or (bool(content) and not content.isspace()))
        )
        object.__setattr__(self, "sendable", sendable)

    @property
    def ref(self) -> str:
        return f"message:{self.id}"

    @property
    def layer(self) -> Layer:
        """A stored message that is sent goes in the working layer."""
        return Layer.WORKING

    @property
    def label(self) -> str:
        return self.role


@dataclass(frozen=True, slots=True)
class SummaryState:
    """The summary in force: its version, text and the message ids it covers (inclusive)."""

    version: int
    text: str
    first_id: int
    last_id: int
    edited: bool = False
    lost: tuple[tuple[int, str], ...] = ()
    """Details of the covered turns the summary does not hold: (message id, detail)."""

    @property
    def ref(self) -> str:
        return f"summary:v{self.version}"


def preview(text: str, width: int = 60) -> str:
    """One line of a text for labels: whitespace folded, cut with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
