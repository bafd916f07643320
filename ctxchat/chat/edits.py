"""Editing a sent message: replace the later turns, or keep them and go on in a branch."""

from __future__ import annotations

from ctxchat.chat.session import ChatSession
from ctxchat.core.history import MessageStatus
from ctxchat.store import Store, SummaryVersion
from ctxchat.store.transfer import IdMap


def replace_from(session: ChatSession, message_id: int, text: str) -> None:
    """Rewrite message `message_id` and drop every turn after it (they are deleted)."""
    message = session.store.get_message(message_id)
    if message.role != "user":
        raise ValueError("Only your own messages can be edited and sent again.")
    session.edit_message(message_id, text)
    session.delete_after(message_id)


def branch_from(session: ChatSession, message_id: int, text: str) -> int:
    """A new conversation holding the turns before `message_id`, then `text` in its place.

    The branch also gets the summary that covers the turns it copies (see
    `covering_summary`), as its own first version, so its first plan shows what the
    original's showed. The original conversation is left whole; returns the branch's id.
    """
    store = session.store
    original = store.get_conversation(session.conversation)
    edited = store.get_message(message_id)
    if edited.role != "user" or edited.conversation_id != original.id:
        raise ValueError("Only your own messages can be edited and sent again.")
    title = f"{original.title or 'Conversation'} (branch)"
    with store.transaction():
        branch = store.create_conversation(title, model=original.model, profile=original.profile)
        copies = IdMap()
        for message in store.messages(original.id):
            if message.id >= message_id:
                break
            if message.status is MessageStatus.STREAMING:
                continue
            copy = store.add_message(
                branch.id,
                message.role,
                message.content,
                tokens=message.tokens,
                exact=message.exact,
                encoding=message.encoding,
                model=message.model,
                status=message.status,
            )
            copies.add(message.id, copy.id)
        summary = covering_summary(store, original.id, message_id)
        if summary is not None:
            _copy_summary(store, summary, branch.id, copies)
        store.add_message(
            branch.id,
            "user",
            text,
            tokens=session.count("user", text),
            exact=session.counter.exact,
            encoding=session.counter.name,
            model=session.model,
        )
    return branch.id


def covering_summary(store: Store, conversation_id: int, message_id: int) -> SummaryVersion | None:
    """The summary a branch made at `message_id` keeps: the one in force if it covers only
    turns before `message_id`; if it covers later turns too, the newest earlier version
    that covers only turns before it (incremental folds make it the same summary, shorter).
    None when no summary is in force."""
    active = store.active_summary(conversation_id)
    if active is None:
        return None
    if active.last_message_id < message_id:
        return active
    earlier = [
        version
        for version in store.summaries(conversation_id)
        if version.version < active.version and version.last_message_id < message_id
    ]
    return earlier[-1] if earlier else None


def _copy_summary(store: Store, summary: SummaryVersion, branch_id: int, copies: IdMap) -> None:
    """`summary` as the branch's own version, covering the copies of the turns it covers."""
    first, last = copies.span(summary.first_message_id, summary.last_message_id)
    if first not in copies.ids.values() or last not in copies.ids.values():
        return  # none of the turns it covers was copied
    store.add_summary(
        branch_id,
        text=summary.text,
        first_message_id=first,
        last_message_id=last,
        strategy=summary.strategy,
        model=summary.model,
        tokens=summary.tokens,
        edited=summary.edited,
        note=f"copied from summary v{summary.version} of conversation {summary.conversation_id}",
    )
