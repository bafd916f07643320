"""SQLite storage: conversations, messages, memory, summaries and per-reply context plans."""

from ctxchat.store.ending import ReplyEnding
from ctxchat.store.errors import (
    CorruptDatabase,
    InvalidValue,
    NewerSchema,
    NotFound,
    StoreError,
    move_aside,
)
from ctxchat.store.markdown import conversation_markdown, export_text
from ctxchat.store.memory import UNSET
from ctxchat.store.records import Conversation, ConversationInfo, StoredMessage, SummaryVersion
from ctxchat.store.schema import SCHEMA_VERSION
from ctxchat.store.store import Store
from ctxchat.store.variants import ReplyVariant
from ctxchat.store.writer import ReplyWriter

__all__ = [
    "SCHEMA_VERSION",
    "UNSET",
    "Conversation",
    "ConversationInfo",
    "CorruptDatabase",
    "InvalidValue",
    "NewerSchema",
    "NotFound",
    "ReplyEnding",
    "ReplyVariant",
    "ReplyWriter",
    "Store",
    "StoreError",
    "StoredMessage",
    "SummaryVersion",
    "conversation_markdown",
    "export_text",
    "move_aside",
]
