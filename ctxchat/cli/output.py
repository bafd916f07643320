"""What a command writes for the user: stdout exact into pipes, cleaned on a terminal."""

from __future__ import annotations

import sys


def write_out(text: str) -> None:
    """`text` on stdout as it is, or cleaned of control sequences when stdout is a terminal.

    Into a pipe, only a lone surrogate (half a character, from a stream cut inside a JSON
    escape) changes: it becomes U+FFFD, as in the store, since UTF-8 cannot hold it."""
    from ctxchat.safe_text import clean, whole_characters

    sys.stdout.write(clean(text) if sys.stdout.isatty() else whole_characters(text))


def say(line: str) -> None:
    """One line on stdout, as `write_out` writes: it may name a path, a model or a title."""
    write_out(line + "\n")


def tell(line: str) -> None:
    """One line for the user on stderr beside the output (`Wrote out.md`), cleaned."""
    from ctxchat.safe_text import clean

    print(clean(line), file=sys.stderr)


def warn(message: str) -> None:
    """One line for the user on stderr, cleaned: it may quote a server or a model."""
    from ctxchat.safe_text import clean

    print(f"ctxchat: {clean(message)}", file=sys.stderr)
