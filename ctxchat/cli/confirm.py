"""Asking the user to agree before something that cannot be undone."""

from __future__ import annotations

import sys


def confirm(question: str) -> bool:
    """Ask `question` on the terminal; only "y" or "yes" agrees (no terminal: no)."""
    if not sys.stdin.isatty():
        return False
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")
