"""No import circle inside ctxchat/chat/: each part is given what it uses, not the session.

The graph is read with ast, so an import under `if TYPE_CHECKING:` (or inside a function)
counts as much as one at the top: a circle there is still two modules that need each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

CHAT = Path(__file__).resolve().parents[2] / "ctxchat" / "chat"
PREFIX = "ctxchat.chat."


def imported(source: str) -> set[str]:
    """The chat/ modules a module's source imports, wherever the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(PREFIX):
                found.add(node.module.removeprefix(PREFIX))
            elif node.module == "ctxchat.chat":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.removeprefix(PREFIX)
                for alias in node.names
                if alias.name.startswith(PREFIX)
            )
    return found


def chat_graph() -> dict[str, set[str]]:
    """Each chat/ module, by name, and the chat/ modules it imports."""
    modules = {path.stem: path for path in CHAT.glob("*.py") if path.stem != "__init__"}
    return {
        name: imported(path.read_text(encoding="utf-8")) & modules.keys() - {name}
        for name, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each module that is on one (depth first, in name order)."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            found.append([*path[path.index(name) :], name])
            return
        if name in done:
            return
        for other in sorted(graph.get(name, ())):
            visit(other, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    return found


def test_the_graph_finds_a_circle_when_there_is_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_type_checking_imports_count() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ctxchat.chat.session import ChatSession\n"
        "def later() -> None:\n"
        "    import ctxchat.chat.turn\n"
    )
    assert imported(source) == {"session", "turn"}


def test_chat_has_no_import_circle() -> None:
    graph = chat_graph()
    assert graph.get("session"), "the graph read no imports of session.py"
    found = cycles(graph)
    assert not found, "import circles in ctxchat/chat/: " + "; ".join(
        " -> ".join(cycle) for cycle in found
    )
