"""Writes the table of every setting (from the declarations in `ctxchat/config/settings.py`)
into docs/configuration.md between its markers; `--check` only says whether the table there
is current (tests/config/test_settings_declared.py runs the same comparison)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxchat.config.reference import settings_table  # noqa: E402

DOC = ROOT / "docs" / "configuration.md"
START, END = "<!-- settings: start -->", "<!-- settings: end -->"


def doc_with(table: str, doc: str) -> str:
    before, _, rest = doc.partition(START)
    _, _, after = rest.partition(END)
    return before + "\n".join([START, table, END]) + after


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args()
    doc = DOC.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        print(f"{DOC.relative_to(ROOT)} has no {START} … {END} block", file=sys.stderr)
        return 1
    new_doc = doc_with(settings_table(), doc)
    stale = new_doc != doc
    if args.check:
        print("stale" if stale else "current")
        return 1 if stale else 0
    DOC.write_text(new_doc, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
