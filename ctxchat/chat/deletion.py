"""What deleting a conversation deletes and what it keeps, said the same in the app and the CLI."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.core.counts import counted
from ctxchat.core.memory import MemoryEntry
from ctxchat.store import Store

__all__ = ["ConversationDeletion"]

# Entries named by their text in the question; more are counted.
NAMED_ENTRIES = 3
ENTRY_PREVIEW = 48


@dataclass(frozen=True, slots=True)
class ConversationDeletion:
    """A conversation about to be deleted: its name, how many messages it holds, and the
    memory entries scoped to it alone (kept unless deleted with it)."""

    conversation_id: int
    name: str
    messages: int
    memory: tuple[MemoryEntry, ...]

    @classmethod
    def of(cls, store: Store, conversation_id: int) -> ConversationDeletion:
        """What deleting `conversation_id` would touch (raises NotFound)."""
        conversation = store.conversations.get_conversation(conversation_id)
        return cls(
            conversation_id,
            conversation.name,
            store.messages.count_messages(conversation_id),
            tuple(store.memory.conversation_memory(conversation_id)),
        )

    def question(self) -> str:
        """`Delete “Trip” and its 4 messages?`"""
        return f"Delete “{self.name}” and its {counted(self.messages, 'message')}?"

    def memory_note(self) -> str:
        """What happens to the conversation's own memory entries ("" when it has none)."""
        if not self.memory:
            return ""
        count = len(self.memory)
        entries = counted(count, "memory entry", "memory entries")
        named = ", ".join(f"“{_preview(entry.text)}”" for entry in self.memory[:NAMED_ENTRIES])
        more = f" and {count - NAMED_ENTRIES} more" if count > NAMED_ENTRIES else ""
        return (
            f"It has {entries} of its own: {named}{more}. They are kept as global entries, "
            "left out of requests until you include them."
        )

    def done(self, *, with_memory: bool) -> str:
        """What was done, once it is."""
        told = f"Deleted “{self.name}”"
        if not self.memory:
            return told + "."
        count = len(self.memory)
        entries = counted(count, "memory entry", "memory entries")
        if with_memory:
            return f"{told} and its {entries}."
        return f"{told}; kept its {entries} as global entries, left out until you include them."


def _preview(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= ENTRY_PREVIEW else line[: ENTRY_PREVIEW - 1] + "…"
