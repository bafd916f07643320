"""Every binding id is listed where a user looks for it: the id table of docs/keys.md and the
config `ctxchat config init` writes, each with the keys it ships with; every key and
palette command comes from the action table."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import tomllib
from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from ctxchat import tui
from ctxchat.config.shipped_keys import SHIPPED_KEYS
from ctxchat.config.template import write_initial_config
from ctxchat.tui.actions import ACTIONS, bindings_for, shipped_bindings
from ctxchat.tui.conversation_screen import ConversationScreen

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_keys_are_the_apps_bindings() -> None:
    """Stale after a binding changes: `python scripts/binding_ids.py` writes both lists."""
    assert {name: keys for name, (keys, _) in shipped_bindings().items()} == SHIPPED_KEYS


def test_the_keys_doc_lists_every_id_with_its_keys() -> None:
    doc = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    for name, (keys, _) in shipped_bindings().items():
        shown = "`, `".join(keys.split(","))
        assert f"| `{name}` | `{shown}` |" in doc, name


def test_the_config_template_lists_every_id_and_uncommented_each_line_is_a_remap(
    tmp_path: Path,
) -> None:
    path = write_initial_config(tmp_path / "config.toml")
    text = path.read_text(encoding="utf-8")
    listed = [
        line.removeprefix("# ")
        for line in text.splitlines()
        if line.startswith('# "') and " = " in line
    ]
    remaps = tomllib.loads("\n".join(listed))
    assert {k: v for k, v in remaps.items() if k in SHIPPED_KEYS} == SHIPPED_KEYS


def classes_with_bindings() -> list[type]:
    """Every class of the app's own that declares `BINDINGS`."""
    found: list[type] = []
    for module_info in pkgutil.walk_packages(tui.__path__, f"{tui.__name__}."):
        module = importlib.import_module(module_info.name)
        found.extend(
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and value.__module__ == module.__name__
            and "BINDINGS" in vars(value)
        )
    return found


def test_every_key_is_the_action_tables() -> None:
    """A key bound by hand, outside the action table, would be missing from docs/keys.md, the
    config template and the screen's check of where it applies."""
    for module_info in pkgutil.walk_packages(tui.__path__, f"{tui.__name__}."):
        if module_info.name in ("ctxchat.tui.actions", "ctxchat.tui.action"):
            continue  # the table, and `Action.binding`, which makes each binding of it
        source = ast.parse(
            Path(importlib.import_module(module_info.name).__file__ or "").read_text()
        )
        calls = [
            node
            for node in ast.walk(source)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Binding"
        ]
        assert calls == [], module_info.name
    classes = classes_with_bindings()
    for cls in classes:
        assert vars(cls)["BINDINGS"] == bindings_for(cls.__name__), cls.__name__
    bound_on = {
        where for action in ACTIONS if action.keys for where in (action.where, *action.also_on)
    }
    assert bound_on == {cls.__name__ for cls in classes}


def tui_classes() -> dict[str, type]:
    """Every class of the app's own (`ctxchat.tui`), by name."""
    found: dict[str, type] = {}
    for module_info in pkgutil.walk_packages(tui.__path__, f"{tui.__name__}."):
        module = importlib.import_module(module_info.name)
        found.update(
            (name, value)
            for name, value in vars(module).items()
            if isinstance(value, type) and value.__module__ == module.__name__
        )
    return found


def test_the_palette_and_the_screens_keys_run_what_their_owner_has() -> None:
    """Each palette command and key of the conversation screen runs an action the screen
    has, or the method its `target` names on the part or widget that owns it."""
    classes = tui_classes()
    for action in [action for action in ACTIONS if action.target]:
        where, method = action.target.split(".")
        assert callable(getattr(classes[where], method, None)), action.id
    for action in ACTIONS:
        if action.palette or action.where == "ConversationScreen":
            name = action.screen_action.split("(")[0]
            assert callable(getattr(ConversationScreen, f"action_{name}", None)), action.id


# A key as the docs write it in prose: `f10`, `ctrl+y`, `shift+f3`.
PROSE_KEY = re.compile(r"`((?:f\d{1,2})|(?:(?:ctrl|shift|alt|super)\+[a-z0-9_+]+))`")


def test_every_key_the_docs_name_is_one_the_app_binds() -> None:
    """Keys written in prose (the README, docs/) come from the action table: a key named
    there that nothing binds (the task dialog said to be on `f9` when it is on `f10`) fails."""
    bound = {App.COMMAND_PALETTE_BINDING}  # Textual's own: the command palette, and focus
    for own in (App, Screen):
        for binding in own.BINDINGS:
            keys = binding.key if isinstance(binding, Binding) else binding[0]
            bound.update(key.strip() for key in keys.split(","))
    for action in ACTIONS:
        bound.update(key.strip() for key in action.keys.split(",") if key.strip())
    for cls in classes_with_bindings():
        for binding in vars(cls)["BINDINGS"]:
            bound.update(key.strip() for key in binding.key.split(","))
    named: dict[str, set[str]] = {}
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for key in PROSE_KEY.findall(doc.read_text(encoding="utf-8")):
            named.setdefault(key, set()).add(doc.name)
    assert named  # the docs name keys: the pattern finds them
    assert {key: docs for key, docs in named.items() if key not in bound} == {}
