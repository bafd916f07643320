"""Writes every binding id with its shipped keys into `ctxchat/config/shipped_keys.py` (the
config template lists them) and into the id table of docs/keys.md; `--check` only says
whether both are current (tests/app/test_binding_ids.py runs the same comparison)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxchat.tui.actions import shipped_bindings  # noqa: E402

MODULE = ROOT / "ctxchat" / "config" / "shipped_keys.py"
DOC = ROOT / "docs" / "keys.md"
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


def doc_table(bindings: dict[str, tuple[str, str]]) -> str:
    rows = [
        "| id | keys | what it does |",
        "|---|---|---|",
        *(
            f"| `{name}` | `{keys.replace(',', '`, `')}` | {what.replace('|', '/')} |"
            for name, (keys, what) in bindings.items()
        ),
    ]
    return "\n".join([START, *rows, END])


def doc_with(table: str, doc: str) -> str:
    before, _, rest = doc.partition(START)
    _, _, after = rest.partition(END)
    return before + table + after


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args()
    bindings = shipped_bindings()
    module = module_text(bindings)
    doc = DOC.read_text(encoding="utf-8")
    if START not in doc:
        print(f"{DOC.relative_to(ROOT)} has no {START} … {END} block", file=sys.stderr)
        return 1
    new_doc = doc_with(doc_table(bindings), doc)
    stale = MODULE.read_text(encoding="utf-8") != module if MODULE.exists() else True
    stale = stale or new_doc != doc
    if args.check:
        print("stale" if stale else "current")
        return 1 if stale else 0
    MODULE.write_text(module, encoding="utf-8")
    DOC.write_text(new_doc, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
