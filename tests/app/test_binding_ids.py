"""Every binding id is listed where a user looks for it: the README's id table and the
config `ctxchat config init` writes, each with the keys it ships with."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ctxchat.config.shipped_keys import SHIPPED_KEYS
from ctxchat.config.template import write_initial_config
from ctxchat.tui.actions import shipped_bindings

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_keys_are_the_apps_bindings() -> None:
    """Stale after a binding changes: `python scripts/binding_ids.py` writes both lists."""
    assert {name: keys for name, (keys, _) in shipped_bindings().items()} == SHIPPED_KEYS


def test_the_readme_lists_every_id_with_its_keys() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, (keys, _) in shipped_bindings().items():
        shown = "`, `".join(keys.split(","))
        assert f"| `{name}` | `{shown}` |" in readme, name


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
