"""Text made safe for a terminal: escape sequences removed, other controls shown visibly.

The one cleaning function for everything ctxchat shows on a terminal (the TUI, the CLI's
tables, text and JSON when they go to a terminal). It runs at display time only: stored
text, and output the user asked for raw (a pipe, a file), is never changed.
"""

from __future__ import annotations

import re

# 7-bit escape sequences a terminal would act on, removed whole so their parameters do not
# show as junk: CSI (colours, cursor moves, 2J, DSR queries), OSC (titles, OSC 8 links, OSC 52
# clipboard writes), DCS/SOS/PM/APC strings, and two- and three-byte ESC sequences (RIS).
_SEQUENCE = re.compile(
    r"""
      \x1b\[ [0-?]* [ -/]* [@-~]?                    # CSI … final byte
    | \x1b\] [^\x07\x1b\x9c\n]* (?:\x07|\x1b\\|\x9c)?  # OSC … BEL or ST
    | \x1b[PX^_] [^\x1b\x9c\n]* (?:\x1b\\|\x9c)?     # DCS, SOS, PM, APC … ST
    | \x1b [ -/]* [0-~]?                             # nF, Fp, Fe, Fs escapes (or a lone ESC)
    """,
    re.VERBOSE,
)
# C0 controls but tab and newline, DEL, C1 controls (their 8-bit sequences included), the
# bidi embeddings, overrides and isolates that make text read differently from what it is
# ("Trojan Source"), and lone surrogates (half a character: a stream cut inside a JSON
# escape), which cannot be written to a terminal or a file.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NEWLINES = re.compile(r"\r\n?")

REPLACEMENT = "\ufffd"
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
# What is left after the sequences are gone is shown, not acted on: C0 as its control
# picture (NUL → ␀, BEL → ␇), DEL, C1 and bidi controls as a `\uXXXX` escape, a lone
# surrogate as U+FFFD. The escape form keeps JSON exact: cleaned JSON text still decodes to
# the original strings.
_SHOWN: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)},
    **{code: f"\\u{code:04x}" for code in (*range(0x7F, 0xA0), *_BIDI)},
    **{code: REPLACEMENT for code in range(0xD800, 0xE000)},
}


def clean(text: str) -> str:
    """`text` made safe to display: escape sequences removed, other controls made visible.

    Newlines and tabs stay; `\\r\\n` and a lone `\\r` become `\\n`. Text without anything to
    clean is returned as it is, so calling this on every keystroke costs one regex search.
    """
    if _CONTROL.search(text) is None:
        return text
    text = _NEWLINES.sub("\n", text)
    text = _SEQUENCE.sub("", text)
    return text.translate(_SHOWN)


def whole_characters(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD, so it can be written as UTF-8 (into a pipe
    or a file, where nothing else is changed)."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def controls_shown(text: str) -> str:
    """`text` with its controls made visible and nothing removed, for text being edited.

    Escape sequences keep their parameters (`\\x1b[31m` shows as `␛[31m`); tabs and line
    breaks (`\\n`, `\\r`) stay as they are.
    """
    if _CONTROL.search(text) is None:
        return text
    return text.translate(_SHOWN_IN_EDITS)


_SHOWN_IN_EDITS = {code: shown for code, shown in _SHOWN.items() if code != 0x0D}
