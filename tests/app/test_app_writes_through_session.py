"""The TUI never writes to the store itself: every change goes through the session, which
keeps what it read true (see ChatSession), so no screen has to tell it to forget."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import get_type_hints

from ctxchat.store import Store

TUI = Path(__file__).resolve().parents[2] / "ctxchat" / "tui"

# `history` opens a write transaction only to keep counts it redid: it is a read.
READS_THAT_KEEP_COUNTS = {"history"}
FORGETTING = re.compile(r"\.(forget_(recall|memory|summary|history)|invalidate)\(")

# The store's repositories by name (`store.memory`), as the Store class declares them.
REPOSITORIES = {
    name: kind
    for name, kind in get_type_hints(Store).items()
    if isinstance(kind, type) and kind.__module__.startswith("ctxchat.store.")
}


def store_writes() -> set[str]:
    """The repositories' public methods that open a write transaction."""
    return {
        name
        for repository in REPOSITORIES.values()
        for name, method in inspect.getmembers(repository, inspect.isfunction)
        if not name.startswith("_")
        and "self._db.transaction()" in inspect.getsource(method)
        and name not in READS_THAT_KEEP_COUNTS
    }


def _is_store(node: ast.expr, aliases: set[str]) -> bool:
    """`x.store`, `store`, one of their repositories (`store.memory`), or a name bound to one
    of those in the module."""
    if isinstance(node, ast.Attribute):
        return node.attr == "store" or (
            node.attr in REPOSITORIES and _is_store(node.value, aliases)
        )
    return isinstance(node, ast.Name) and (node.id == "store" or node.id in aliases)


def store_writes_in(source: str, writes: set[str]) -> list[str]:
    """Calls of a store write method in `source`, as `line: call`."""
    tree = ast.parse(source)
    aliases = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_store(node.value, set())
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return [
        f"{node.lineno}: {ast.unparse(node.func)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in writes
        and _is_store(node.func.value, aliases)
    ]


def test_the_check_knows_the_store_writes_and_finds_them() -> None:
    writes = store_writes()
    assert {"add_memory", "update_memory", "delete_memory", "add_summary", "keep_variant"} <= (
        writes
    )
    assert "get_memory" not in writes and "history" not in writes
    found = store_writes_in(
        "def f(self):\n"
        "    self.session.store.memory.update_memory(1, pinned=True)\n"
        "    store = self.session.store\n"
        "    store.memory.delete_memory(1)\n"
        "    self.session.memory_book.delete(1)\n"
        "    self.session.store.memory.get_memory(1)\n",
        writes,
    )
    assert found == ["2: self.session.store.memory.update_memory", "4: store.memory.delete_memory"]


def test_no_tui_module_calls_a_store_write_method() -> None:
    writes = store_writes()
    found = {
        str(path.relative_to(TUI)): calls
        for path in sorted(TUI.rglob("*.py"))
        if (calls := store_writes_in(path.read_text(encoding="utf-8"), writes))
    }
    assert found == {}, "write through ChatSession (or its memory_book), not the store"


def test_no_tui_module_tells_the_session_to_forget() -> None:
    told = [
        f"{path.relative_to(TUI)}:{number}"
        for path in sorted(TUI.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FORGETTING.search(line)
    ]
    assert told == []
