"""ARCHITECTURE.md points at files, classes and their attributes that exist: a name renamed
or moved without the map fails here."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "ARCHITECTURE.md"
# `chat/session.py: ChatSession.plan`, `tui/actions.py: ACTIONS`, `tests/waiting.py`
POINTER = re.compile(r"`([\w/]+\.py)(?::\s*([A-Za-z_][\w.]*))?")
# `ChatSession.active_summary`, `TurnRunner.failures`: a class the map names, and its attribute
MEMBER = re.compile(r"`([A-Z]\w+)\.([a-z_]\w*)")


def source_of(pointer: str) -> Path:
    """The file a pointer names: under `ctxchat/` unless it names the repository's own."""
    inside = ROOT / "ctxchat" / pointer
    return inside if inside.exists() else ROOT / pointer


@cache
def names_in(path: Path) -> dict[str, set[str]]:
    """The names `path` defines at its top level, each with the names its class defines
    (methods, class attributes, nested classes, and what `self.` is given)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for inner in ast.walk(node):
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    members.add(inner.name)
                elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    members.add(inner.id)
                elif isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store):
                    members.add(inner.attr)
            # What it inherits from a class the map names too: `Store.data_version` is Database's.
            members.update(f"^{base.id}" for base in node.bases if isinstance(base, ast.Name))
            defined[node.name] = members
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defined[node.name] = set()
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update({t.id: set() for t in targets if isinstance(t, ast.Name)})
    return defined


def test_every_file_and_name_the_map_points_at_exists() -> None:
    text = MAP.read_text(encoding="utf-8")
    missing = []
    classes: dict[str, set[str]] = {}
    for pointer, name in POINTER.findall(text):
        if "/" not in pointer:
            continue  # a file of the folder the sentence names (`markdown.py` in textual_compat)
        path = source_of(pointer)
        if not path.exists():
            missing.append(pointer)
            continue
        defined = names_in(path)
        classes.update({k: v for k, v in defined.items() if v})
        if not name:
            continue
        top, _, member = name.partition(".")
        if top not in defined or (member and member.split(".")[0] not in defined[top]):
            missing.append(f"{pointer}: {name}")

    def has(cls: str, member: str) -> bool:
        found = classes.get(cls, set())
        return member in found or any(has(base[1:], member) for base in found if base[0] == "^")

    for cls, member in MEMBER.findall(text):
        if cls in classes and not has(cls, member):
            missing.append(f"{cls}.{member}")
    assert missing == []
