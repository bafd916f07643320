"""Text made safe for a terminal: escape sequences and control characters neutralised.

Used at display time only (the TUI, and the CLI when it writes to a terminal); stored text
is never changed.
"""

from __future__ import annotations

import re

# Sequences a terminal would act on, removed whole so their parameters do not show as junk:
# CSI (colours, cursor moves), OSC (titles, hyperlinks, clipboard writes), DCS/SOS/PM/APC
# strings, other two- and three-byte ESC sequences, and their 8-bit C1 forms.
_SEQUENCE = re.compile(
    r"""
      \x1b\[ [0-?]* [ -/]* [@-~]?                    # CSI … final byte
    | \x1b\] [^\x07\x1b\x9c\n]* (?:\x07|\x1b\\|\x9c)?  # OSC … BEL or ST
    | \x1b[PX^_] [^\x1b\x9c\n]* (?:\x1b\\|\x9c)?     # DCS, SOS, PM, APC … ST
    | \x1b [ -/]* [0-~]?                             # nF, Fp, Fe, Fs escapes (or a lone ESC)
    | \x9b [0-?]* [ -/]* [@-~]?                      # 8-bit CSI
    | [\x90\x98\x9d\x9e\x9f] [^\x07\x1b\x9c\n]* (?:\x07|\x1b\\|\x9c)?  # 8-bit strings
    """,
    re.VERBOSE,
)
# C0 controls but tab and newline, DEL, C1 controls, and the bidi embeddings, overrides and
# isolates that can make text read differently from what it is ("Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NEWLINES = re.compile(r"\r\n?")


def clean(text: str) -> str:
    """`text` made safe to display: escape sequences and control characters removed.

    Newlines and tabs stay; `\\r\\n` and a lone `\\r` become `\\n`. Text without anything to
    remove is returned as it is, so calling this on every keystroke costs one regex search.
    """
    if _CONTROL.search(text) is None:
        return text
    text = _NEWLINES.sub("\n", text)
    text = _SEQUENCE.sub("", text)
    return _CONTROL.sub("", text)
