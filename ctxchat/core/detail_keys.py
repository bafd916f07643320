"""The forms a detail is found again by: a number's value, a date's parts, a time of day, a
URL without its scheme, and the stems of the words that carry a sentence's meaning."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

from ctxchat.core import detail_words as words

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")


def stem(word: str) -> str:
    """A crude stem, enough to see "deploys", "deployed" and "deploying" as one word, and
    "tiled" and "tiling", "writes" and "write"."""
    word = word.lower().replace("’", "'").removesuffix("'s")
    if word.endswith("ing") and len(word) >= 6:
        word = word[:-3]
    elif len(word) >= 5 and word.endswith(("ed", "ses", "xes", "zes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) >= 4:
        word = word[:-1]
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


def content_words(text: str) -> frozenset[str]:
    """The stems of the words that carry a sentence's meaning."""
    return frozenset(
        stem(word)
        for word in _WORD.findall(text)
        if len(word) > 1
        and word.lower() not in words.STOPWORDS
        and word.lower() not in words.MARKER_WORDS
    )


def _decimal_key(value: Decimal) -> str:
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "n:" + text


def number_keys(value: str, unit: str = "") -> set[str]:
    """The keys a number is found by: its value, and with a scale suffix applied ("1.5k" is
    also 1500); a version with several dots is kept as written."""
    digits = value.replace(",", "")
    if digits.count(".") > 1:
        return {"v:" + digits}
    try:
        number = Decimal(digits)
    except InvalidOperation:
        return set()
    keys = {_decimal_key(number)}
    scale = words.SCALE_SUFFIXES.get(unit.strip().lower())
    if scale:
        keys.add(_decimal_key(number * scale))
    return keys


def numbers_in_words(text: str) -> Iterator[int]:
    """Numbers written in words ("twenty-five", "three hundred", "a dozen")."""
    total = current = 0
    seen = False
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in words.NUMBER_WORDS:
            current += words.NUMBER_WORDS[word]
            seen = True
        elif word in words.SCALE_WORDS and seen:
            current = max(current, 1) * words.SCALE_WORDS[word]
            if words.SCALE_WORDS[word] >= 1000:
                total, current = total + current, 0
        elif not (word == "and" and seen):
            if seen:
                yield total + current
            total = current = 0
            seen = False
    if seen:
        yield total + current


def url_key(url: str) -> str:
    """A URL without scheme, `www.`, case or trailing punctuation."""
    key = re.sub(r"^[a-z]+://", "", url.lower()).removeprefix("www.")
    return "u:" + key.rstrip("/.,;:!?")


def date_key(year: int | None, month: int, day: int | None) -> str | None:
    """`d:YEAR-MONTH-DAY` with `*` for what is not given; None for no real date."""
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    return f"d:{year or '*'}-{month}-{day or '*'}"


def year_of(text: str | None) -> int | None:
    """A year as written: two digits are this century."""
    if not text:
        return None
    year = int(text)
    return year + 2000 if year < 100 else year


def minutes_key(hour: int, minute: int, meridiem: str | None) -> str | None:
    """`t:MINUTES` into the day for a time (12-hour with `meridiem` "a" or "p"); None if none."""
    if meridiem:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if meridiem.lower() == "p" else 0)
    if hour > 23 or minute > 59:
        return None
    return f"t:{hour * 60 + minute}"
