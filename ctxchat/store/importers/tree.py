"""A conversation kept as a tree (edits and regenerations branch it): the branch to import as
the conversation, other answers to keep as variants, and other branches to import apart.

ChatGPT, Claude.ai and Open WebUI keep every edit and regeneration. ctxchat keeps one line
of messages per conversation, and other answers to a message as variants of its reply:

- the branch that ends at the node the tool showed last (its current node) is the
  conversation;
- a side branch with no message of the user in it is another answer to the last user
  message before it: a variant of the reply on the branch (or, where the branch has no
  reply there, a branch conversation);
- a side branch with a message of the user in it (an edited question, or a conversation
  that went on from another answer) is a branch conversation of its own: the messages from
  the start to its newest end, with side branches of its own treated the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ctxchat.store.importers.fields import HistoryFormatError


@dataclass(frozen=True, slots=True)
class TreeNode:
    """A node: its parent's id (None: a root), its children in the order the tool keeps
    them, whether it is a message of the user, and when it was written (for the newest end)."""

    parent: str | None
    children: tuple[str, ...]
    user: bool
    created: float = 0.0


@dataclass(frozen=True, slots=True)
class OtherAnswer:
    """Another answer to the user message at `path[asked]`: the nodes after it, to `leaf`."""

    asked: int
    nodes: tuple[str, ...]


@dataclass(slots=True)
class Branch:
    """One line of nodes to import as a conversation, with the other answers along it."""

    path: tuple[str, ...]
    leaf: str
    answers: list[OtherAnswer] = field(default_factory=list)


class ConversationTree:
    """The nodes of one conversation by id; parents and children that name no node are left
    out (an export that dropped a node leaves its children as roots)."""

    def __init__(self, nodes: Mapping[str, TreeNode], place: str) -> None:
        self._nodes = nodes
        self._place = place
        self._has_user: dict[str, bool] = {}

    def parent(self, node: str) -> str | None:
        parent = self._nodes[node].parent
        return parent if parent is not None and parent in self._nodes else None

    def children(self, node: str) -> tuple[str, ...]:
        return tuple(
            child
            for child in self._nodes[node].children
            if child in self._nodes and self.parent(child) == node
        )

    def path(self, leaf: str) -> tuple[str, ...]:
        """The nodes from the root to `leaf`."""
        nodes: list[str] = []
        seen: set[str] = set()
        at: str | None = leaf
        while at is not None:
            if at in seen:
                raise HistoryFormatError(f"{self._place}: node {at!r} is its own ancestor")
            seen.add(at)
            nodes.append(at)
            at = self.parent(at)
        nodes.reverse()
        return tuple(nodes)

    def leaves(self, start: str) -> list[str]:
        """The ends of the branches under `start` (itself when it has no children), in the
        order the tool keeps them."""
        return [node for node in self._under(start) if not self.children(node)]

    def roots(self) -> list[str]:
        """The nodes without a parent, in the order they are kept."""
        return [node for node in self._nodes if self.parent(node) is None]

    def __contains__(self, node: object) -> bool:
        return node in self._nodes

    def newest_leaf(self, start: str) -> str:
        """The end written last under `start` (the last one kept, on equal times)."""
        return self.newest_leaf_of((start,))

    def newest_leaf_of(self, starts: Iterable[str]) -> str:
        ends = [end for start in starts for end in self.leaves(start)]
        return max(enumerate(ends), key=lambda pair: (self._nodes[pair[1]].created, pair[0]))[1]

    def has_user(self, start: str) -> bool:
        """Whether a message of the user is at or under `start`."""
        known = self._has_user.get(start)
        if known is None:
            known = any(self._nodes[node].user for node in self._under(start))
            self._has_user[start] = known
        return known

    def _under(self, start: str) -> Iterable[str]:
        """`start` and every node under it, depth first, children in their order."""
        todo = [start]
        seen: set[str] = set()
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            yield node
            todo.extend(reversed(self.children(node)))

    def between(self, start: str, leaf: str) -> tuple[str, ...]:
        """The nodes from `start` down to `leaf` (which is under it)."""
        path = self.path(leaf)
        return path[path.index(start) :]

    def branches(self, leaf: str) -> list[Branch]:
        """The branch to `leaf` first, then every branch conversation beside it."""
        return self._branches(leaf, 0)

    def _branches(self, leaf: str, first: int) -> list[Branch]:
        path = self.path(leaf)
        branch = Branch(path, leaf)
        found = [branch]
        on_path = set(path)
        for index in range(first, len(path)):
            asked = _last_user(path, index, self._nodes)
            for child in self.children(path[index]):
                if child in on_path:
                    continue
                if (
                    self.has_user(child)
                    or asked is None
                    or not _has_reply(path, asked, self._nodes)
                ):
                    found.extend(self._branches(self.newest_leaf(child), index + 1))
                    continue
                for end in self.leaves(child):
                    nodes = path[asked + 1 : index + 1] + self.between(child, end)
                    branch.answers.append(OtherAnswer(asked, nodes))
        return found


def _last_user(path: Sequence[str], index: int, nodes: Mapping[str, TreeNode]) -> int | None:
    """The place of the last user message at or before `index`."""
    for at in range(index, -1, -1):
        if nodes[path[at]].user:
            return at
    return None


def _has_reply(path: Sequence[str], asked: int, nodes: Mapping[str, TreeNode]) -> bool:
    """Whether the branch goes on after the user message at `asked` with something else than
    another user message."""
    return asked + 1 < len(path) and not nodes[path[asked + 1]].user


def conversation_branches(
    tree: ConversationTree, roots: Sequence[str], current: str | None
) -> list[Branch]:
    """Every branch to import: the one to the node the tool showed last (when it names a
    node, else the newest end) first, then the rest, roots of their own included."""
    if not roots:
        return []
    if current is None or current not in tree:
        current = tree.newest_leaf_of(roots)
    branches = tree.branches(current)
    own_root = branches[0].path[0]
    for root in roots:
        if root != own_root and tree.has_user(root):
            branches.extend(tree.branches(tree.newest_leaf(root)))
    return branches
