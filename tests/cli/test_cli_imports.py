"""The command-line modules import each other in one direction only (no cycle, lazy imports
included): exit codes and `CliError` live in a module of their own."""

from __future__ import annotations

import ast
from pathlib import Path

import ctxchat.cli

PACKAGE = "ctxchat.cli"


def cli_imports() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports, anywhere in it."""
    graph: dict[str, set[str]] = {}
    for path in Path(ctxchat.cli.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE + "."):
                found.add(str(node.module))
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith(PACKAGE + "."))
        graph[f"{PACKAGE}.{path.stem}"] = found
    return graph


def test_the_command_line_modules_form_no_cycle() -> None:
    graph = cli_imports()
    assert f"{PACKAGE}.exits" in graph and graph[f"{PACKAGE}.exits"] == set()
    visiting: list[str] = []
    done: set[str] = set()

    def visit(module: str) -> None:
        assert module not in visiting, " -> ".join([*visiting, module])
        if module in done:
            return
        visiting.append(module)
        for imported in sorted(graph.get(module, ())):
            visit(imported)
        visiting.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
