"""Writes the table of every setting (from the declarations in `ctxchat/config/settings.py`)
into README.md between its markers; `--check` only says whether the README's is current
(tests/config/test_settings_declared.py runs the same comparison)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxchat.config.reference import settings_table  # noqa: E402

README = ROOT / "README.md"
START, END = "<!-- settings: start -->", "<!-- settings: end -->"


def readme_with(table: str, readme: str) -> str:
    before, _, rest = readme.partition(START)
    _, _, after = rest.partition(END)
    return before + "\n".join([START, table, END]) + after


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args()
    readme = README.read_text(encoding="utf-8")
    if START not in readme or END not in readme:
        print(f"README.md has no {START} … {END} block", file=sys.stderr)
        return 1
    new_readme = readme_with(settings_table(), readme)
    stale = new_readme != readme
    if args.check:
        print("stale" if stale else "current")
        return 1 if stale else 0
    README.write_text(new_readme, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
