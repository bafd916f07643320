"""Dates written in text: those a question names, and those a message is dated by.

Recall favours the messages dated when a question asks about ("what did she cook in June
2023?", "where was he on 3 June?", "the trip last May"): a message's dates are the ones
written in it (a transcript's session date, "on 8 May, 2023", "2023-05-08"). A date names a
year, a month or a day; a part it leaves out matches any ("June" matches a June of any
year). Only calendar names and numbers count: "last week" or "yesterday" need a time to
count from, which a question and a pasted text do not reliably share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_NUMBER = {name: number for number, name in enumerate(_MONTHS, start=1)}
_MONTH_NUMBER.update({name[:3]: number for name, number in list(_MONTH_NUMBER.items())})
_MONTH_NUMBER["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTH_NUMBER, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
# The shapes a date is written in, most precise first; each match is taken once.
_SHAPES = tuple(
    re.compile(shape, re.IGNORECASE)
    for shape in (
        r"\b" + _YEAR + r"-(?P<month_number>[01]\d)-(?P<day>[0-3]\d)\b",  # 2023-05-08
        r"\b" + _DAY + r"(?:\s+of)?\s+" + _MONTH + r",?\s*" + _YEAR + r"\b",  # 8 May, 2023
        r"\b" + _MONTH + r"\s+" + _DAY + r"(?:,\s*|\s+)" + _YEAR + r"\b",  # May 8, 2023
        r"\b" + _MONTH + r",?\s+" + _YEAR + r"\b",  # May 2023
        r"\b" + _DAY + r"(?:\s+of)?\s+" + _MONTH + r"\b",  # 8 May
        r"\b" + _MONTH + r"\s+" + _DAY + r"\b(?!:)",  # May 8 (not "May 8:30")
        r"\b" + _MONTH + r"\b",  # May
        r"\b(?:in|of|since|during|by|until|before|after)\s+" + _YEAR + r"\b",  # in 2022
        r"\b(?:spring|summer|autumn|fall|winter)\s+(?:of\s+)?" + _YEAR + r"\b",  # summer 2021
    )
)
# A month name alone that is also a common word counts only with a word that makes it a
# time: "in May", "last March", not "you may" or "they march".
_AMBIGUOUS = frozenset({"may", "march", "mar", "jan", "sept", "sep", "oct", "nov", "dec", "aug"})
_BEFORE_MONTH = re.compile(
    r"\b(?:in|last|this|next|of|since|during|early|late|mid|until|by|before|after|"
    r"from|through|past|every)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Date:
    """A calendar date as written: any part may be left out (None)."""

    year: int | None = None
    month: int | None = None
    day: int | None = None

    def within(self, asked: Date) -> bool:
        """Whether this date falls in `asked` (each part `asked` names agrees)."""
        return (
            (asked.year is None or self.year == asked.year)
            and (asked.month is None or self.month == asked.month)
            and (asked.day is None or self.day == asked.day)
        )


def dates_in(text: str) -> tuple[Date, ...]:
    """The dates written in `text`, once each, in the order written."""
    found: list[tuple[int, Date]] = []
    taken: list[tuple[int, int]] = []
    for shape in _SHAPES:
        for match in shape.finditer(text):
            start, end = match.span()
            if any(start < other_end and other_start < end for other_start, other_end in taken):
                continue
            date = _date_of(match, text)
            if date is not None:
                taken.append((start, end))
                found.append((start, date))
    return tuple(dict.fromkeys(date for _, date in sorted(found, key=lambda f: f[0])))


def _date_of(match: re.Match[str], text: str) -> Date | None:
    parts = match.groupdict()
    month: int | None = None
    if parts.get("month_number"):
        month = int(parts["month_number"])
    elif parts.get("month"):
        name = parts["month"].casefold()
        month = _MONTH_NUMBER[name]
        alone = not parts.get("day") and not parts.get("year")
        ambiguous = name in _AMBIGUOUS or len(name) == 3
        before = text[max(0, match.start() - 12) : match.start()]
        if alone and ambiguous and not _BEFORE_MONTH.search(before):
            return None
    day = int(parts["day"]) if parts.get("day") else None
    if (day is not None and not 1 <= day <= 31) or (month is not None and not 1 <= month <= 12):
        return None
    year = int(parts["year"]) if parts.get("year") else None
    return Date(year, month, day)


def dated_within(text: str, asked: tuple[Date, ...]) -> bool:
    """Whether a date written in `text` falls in one of `asked`."""
    return any(date.within(wanted) for date in dates_in(text) for wanted in asked)
