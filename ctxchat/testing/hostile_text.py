"""Hostile text for tests: every control sequence a terminal would act on, each labelled.

Each sample's raw form must never reach a terminal; `HOSTILE_TEXT` joins them all so one
stored message, title or model id carries the whole corpus down an output path.
"""

from __future__ import annotations

# name → raw text. The names are plain words, so a cleaned output path still shows them.
HOSTILE_SAMPLES: dict[str, str] = {
    "osc52": "\x1b]52;c;SE9TVElMRQ==\x07",
    "osc52st": "\x1b]52;c;SE9TVElMRQ==\x1b\\",
    "osc0": "\x1b]0;pwned title\x07",
    "osc2": "\x1b]2;pwned title\x1b\\",
    "osc8": "\x1b]8;;https://evil.test/\x1b\\click\x1b]8;;\x1b\\",
    "clear": "\x1b[2J\x1b[3J",
    "ris": "\x1bc",
    "cursor": "\x1b[H\x1b[10;20H\x1b[5A\x1b7\x1b8",
    "colour": "\x1b[31;1m",
    "dsr": "\x1b[6n",
    "da": "\x1b[c",
    "dcs": "\x1bPq#0;2;0;0;0\x1b\\",
    "c1csi": "\x9b2J",
    "c1osc": "\x9d0;pwned title\x9c",
    "c1nel": "\x85",
    "rlo": "\u202eevil\u202c",
    "lri": "\u2066isolated\u2069",
    "nul": "\x00",
    "bel": "\x07",
    "backspace": "\x08\x08\x08",
    "cr": "hidden\roverwritten",
    "del": "\x7f",
    "decid": "\x1bZ",
}

HOSTILE_TEXT = " ".join(f"<{name}>{raw}" for name, raw in HOSTILE_SAMPLES.items())

# One model id per sample, as a server's `/v1/models` may list them (`<osc52>…model`).
HOSTILE_MODEL_IDS = [f"<{name}>{raw}model" for name, raw in HOSTILE_SAMPLES.items()]

# A file name (no "/", no NUL, under 255 bytes) carrying a sample of each kind.
HOSTILE_FILE_NAME = "".join(
    f"<{name}>{HOSTILE_SAMPLES[name]}" for name in ("osc0", "clear", "c1csi", "rlo", "bel")
)


def leaked(output: bytes) -> list[str]:
    """The samples whose raw bytes appear in `output` (as written to a terminal)."""
    return [name for name, raw in HOSTILE_SAMPLES.items() if f"<{name}>{raw}".encode() in output]
