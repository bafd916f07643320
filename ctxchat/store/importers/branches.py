"""A tool's tree of messages made into ctxchat conversations: the branch shown last, with its
other answers, then each branch conversation beside it (see `tree`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ctxchat.store.importers.pieces import Piece, branch_messages
from ctxchat.store.importers.records import ImportedConversation
from ctxchat.store.importers.tree import ConversationTree, conversation_branches

_EMPTY = Piece("system", "")


@dataclass(frozen=True, slots=True)
class About:
    """What a tool says of the conversation as a whole."""

    origin_id: str
    title: str
    created_at: float | None
    updated_at: float | None
    model: str | None
    change: str
    """What other answers say of themselves (`another answer in ChatGPT`)."""


def tree_conversations(
    tree: ConversationTree,
    pieces: Mapping[str, Piece | None],
    current: str | None,
    about: About,
) -> Iterator[ImportedConversation]:
    """The conversation to `current` (or the newest end), then its branch conversations,
    titled `Title (branch 2)` and known by `origin_id#end-node`. A node without a piece
    (None: left out) passes its place to its children."""
    for index, branch in enumerate(conversation_branches(tree, tree.roots(), current)):
        messages = branch_messages(
            [pieces[node] or _EMPTY for node in branch.path],
            [
                (answer.asked, [pieces[node] or _EMPTY for node in answer.nodes])
                for answer in branch.answers
            ],
            about.change,
        )
        used = [m.model for m in messages if m.model]
        yield ImportedConversation(
            about.origin_id if index == 0 else f"{about.origin_id}#{branch.leaf}",
            about.title if index == 0 else f"{about.title or 'Untitled'} (branch {index + 1})",
            messages,
            about.created_at,
            about.updated_at,
            used[-1] if used else about.model,
        )
