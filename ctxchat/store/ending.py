"""ReplyEnding: how a streamed answer ended, the one value a reply or a variant is finished with."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ctxchat.core.history import MessageStatus
from ctxchat.store.errors import InvalidValue
from ctxchat.store.records import storable


@dataclass(frozen=True, slots=True)
class ReplyEnding:
    """The whole answer and everything known about how it ended.

    Every field is a column of the same name in the messages and reply_variants tables and
    means what it means on `StoredMessage`: the text and reasoning, how it ended (`status`:
    complete, interrupted or failed, never streaming), its count (`tokens`, with `encoding`
    and `exact`), the server's usage, and the error as ctxchat tells it (`error`) and as the
    server said it (`error_detail`), and whether its server charges for it (`billing`:
    "free" or "priced"). A field added here is stored for replies and variants alike.
    """

    content: str
    tokens: int
    exact: bool
    encoding: str
    reasoning: str = ""
    status: MessageStatus = MessageStatus.COMPLETE
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    error: str | None = None
    error_detail: str | None = None
    billing: str | None = None

    def __post_init__(self) -> None:
        status = MessageStatus(self.status)
        if status is MessageStatus.STREAMING:
            raise InvalidValue("A finished reply cannot still be streaming.")
        object.__setattr__(self, "status", status)

    @classmethod
    def columns(cls) -> tuple[str, ...]:
        """The columns an ending sets, in the order `values` gives them."""
        return tuple(field.name for field in dataclasses.fields(cls))

    @classmethod
    def assignments(cls) -> str:
        """`column = ?, …` for an UPDATE that sets every column of the ending."""
        return ", ".join(f"{name} = ?" for name in cls.columns())

    def values(self) -> tuple[Any, ...]:
        """The values for `assignments`, as SQLite stores them."""
        return tuple(_sqlite_value(getattr(self, name)) for name in self.columns())


def _sqlite_value(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        return storable(value)
    return value
