"""Writes every binding id with its shipped keys into `ctxchat/config/shipped_keys.py` (the
config template lists them) and into README.md's id table; `--check` only says whether
both are current (tests/app/test_binding_ids.py runs the same comparison)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxchat.tui.actions import shipped_bindings  # noqa: E402

MODULE = ROOT / "ctxchat" / "config" / "shipped_keys.py"
README = ROOT / "README.md"
START, END = "<!-- binding ids: start -->", "<!-- binding ids: end -->"


def module_text(bindings: dict[str, tuple[str, str]]) -> str:
    lines = [
        '"""Every binding id and the keys it ships with, for the config template (written by',
        '`scripts/binding_ids.py` from the app\'s bindings; a test checks it is current)."""',
        "",
        "SHIPPED_KEYS: dict[str, str] = {",
        *(f'    "{name}": "{keys}",' for name, (keys, _) in bindings.items()),
        "}",
        "",
    ]
    return "\n".join(lines)


def readme_table(bindings: dict[str, tuple[str, str]]) -> str:
    rows = [
        "| id | keys | what it does |",
        "|---|---|---|",
        *(
            f"| `{name}` | `{keys.replace(',', '`, `')}` | {what.replace('|', '/')} |"
            for name, (keys, what) in bindings.items()
        ),
    ]
    return "\n".join([START, *rows, END])


def readme_with(table: str, readme: str) -> str:
    before, _, rest = readme.partition(START)
    _, _, after = rest.partition(END)
    return before + table + after


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args()
    bindings = shipped_bindings()
    module = module_text(bindings)
    readme = README.read_text(encoding="utf-8")
    if START not in readme:
        print(f"README.md has no {START} … {END} block", file=sys.stderr)
        return 1
    new_readme = readme_with(readme_table(bindings), readme)
    stale = MODULE.read_text(encoding="utf-8") != module if MODULE.exists() else True
    stale = stale or new_readme != readme
    if args.check:
        print("stale" if stale else "current")
        return 1 if stale else 0
    MODULE.write_text(module, encoding="utf-8")
    README.write_text(new_readme, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
