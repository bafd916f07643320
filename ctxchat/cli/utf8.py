"""Text from the command line and standard input is UTF-8; what is not is refused by name.

Python hands undecodable bytes on as lone surrogates, which neither SQLite nor a request
body can hold. Guessing another encoding, or replacing the bytes, would store and send a
message the user never wrote; refused, it is one `iconv` away and nothing is lost.
"""

from __future__ import annotations

import argparse
import os


def utf8_text(data: bytes) -> str:
    """`data` decoded as UTF-8; ValueError naming the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = error.object[error.start]
        raise ValueError(f"not UTF-8 text (byte {byte:#04x} at offset {error.start})") from None


def text_argument(value: str) -> str:
    """An argparse type for free text (a message, a title, a model): refused, in one line,
    when the shell passed bytes that are not UTF-8."""
    try:
        # The bytes as they were given: Python decoded them with surrogateescape.
        return utf8_text(os.fsencode(value))
    except UnicodeEncodeError:  # a surrogate no byte was decoded to (not from a shell)
        raise argparse.ArgumentTypeError("not UTF-8 text (it holds half a character)") from None
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
