"""Bracketed pastes that hold escape characters arrive whole, as one paste.

Textual 8.2.8's input parser reads an escape character inside a bracketed paste as the start
of a key sequence and hands what follows to the app as key presses: a paste of coloured
terminal output or a log then lost its first part until the paste ended, and every line
break after an escape character was an Enter that sent the half-pasted draft. The parser
used here shields such escape characters from Textual's parser (a stand-in goes through
the paste) and puts them back into the paste's text.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser
from textual.drivers import linux_driver
from textual.message import Message

__all__ = ["PasteKeepingParser", "keep_pastes_whole"]

ESCAPE = "\x1b"
PASTE_START = f"{ESCAPE}[200~"
PASTE_END = f"{ESCAPE}[201~"
STAND_IN = "\ufdd0"
"""Carries a pasted escape character through Textual's parser: a Unicode noncharacter,
which no keyboard types and no text meant for reading holds."""


class PasteKeepingParser(XTermParser):
    """Textual's terminal input parser, with escape characters inside a paste kept as text."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._in_paste = False
        self._recent = ""
        """The last characters outside a paste: the start of a paste marker split between reads."""
        self._held = ""
        """An escape character inside a paste and what followed, while it may still begin
        the paste's end marker."""

    def feed(self, data: str) -> Iterable[Message]:
        for token in super().feed(self._shield(data) if data else data):
            if isinstance(token, events.Paste) and STAND_IN in token.text:
                token = events.Paste(token.text.replace(STAND_IN, ESCAPE))
            yield token

    def _shield(self, data: str) -> str:
        """`data` with each escape character inside a paste replaced by the stand-in, except
        the one that ends the paste (held back until it is known which it is)."""
        shielded: list[str] = []
        while data:
            if not self._in_paste:
                seen = self._recent + data
                start = seen.find(PASTE_START)
                if start < 0:
                    shielded.append(data)
                    self._recent = seen[-(len(PASTE_START) - 1) :]
                    break
                inside = start + len(PASTE_START) - len(self._recent)
                shielded.append(data[:inside])
                data = data[inside:]
                self._recent = ""
                self._in_paste = True
                continue
            data = self._held + data
            self._held = ""
            escape = data.find(ESCAPE)
            if escape < 0:
                shielded.append(data)
                break
            shielded.append(data[:escape])
            rest = data[escape:]
            if rest.startswith(PASTE_END):
                shielded.append(PASTE_END)
                data = rest[len(PASTE_END) :]
                self._in_paste = False
            elif PASTE_END.startswith(rest):
                self._held = rest
                break
            else:
                shielded.append(STAND_IN)
                data = rest[1:]
        return "".join(shielded)


def keep_pastes_whole() -> None:
    """Have the terminal driver read input with `PasteKeepingParser` (before the app runs)."""
    linux_driver.XTermParser = PasteKeepingParser  # type: ignore[attr-defined]
