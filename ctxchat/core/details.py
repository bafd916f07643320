"""What a text holds that a summary must not lose: numbers, dates, names, paths, URLs, commands,
code identifiers, decisions and rules, each with the normalized forms it is found again by."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from ctxchat.core import detail_words as words
from ctxchat.core.detail_keys import (
    content_words,
    date_key,
    minutes_key,
    number_keys,
    url_key,
    year_of,
)
from ctxchat.core.detail_kind import DetailKind


@dataclass(frozen=True, slots=True)
class Detail:
    """One detail: as written (`text`), the forms it is found by (`keys`), and its sentence.

    Keys are prefixed by what they are: `n:` a number's value, `v:` a version, `d:` a date
    (`d:YEAR-MONTH-DAY`, `*` where not given), `t:` minutes into the day, `w:` a weekday,
    `q:` a quarter, `u:` a URL, `s:` text found as written, `i:` text found in any case,
    `a:` any one of the words, `c:` the content words of a sentence.
    """

    kind: DetailKind
    text: str
    keys: frozenset[str]
    sentence: str
    anchors: tuple[frozenset[str], ...] = ()
    """For a decision or a rule: the keys of the details inside it (its numbers, names…)."""


# --- patterns ---------------------------------------------------------------------------------

_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S
)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`\[\]()]+|\bwww\.[a-z0-9-]+\.[^\s<>\"'`()]+", re.I)
_WINDOWS_PATH = re.compile(r"\b[A-Za-z]:\\(?:[^\\\s`'\"]+\\)*[^\\\s`'\",;]*")
_ROOTED_PATH = re.compile(r"(?<![\w/.~:-])(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]*[\w@+-]/?")
_RELATIVE_PATH = re.compile(r"(?<![\w/.-])[\w.-]*\w(?:/[\w.@+-]+)+/?")
_FILE_NAME = re.compile(
    rf"(?<![\w/.-])[\w-]+(?:\.[\w-]+)*\.(?:{words.FILE_EXTENSIONS})(?![\w-])"
    rf"|(?<![\w/.-])(?:{words.NAMED_FILES})\b",
    re.I,
)
_MONTH = "|".join(sorted(words.MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})\b")
_MONTH_DAY = re.compile(
    rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?", re.I
)
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b\.?(?:,?\s+(\d{{4}})\b)?", re.I
)
_DAY_RANGE = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s*[-–]\s*(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b"
    rf"\.?(?:,?\s+(\d{{4}})\b)?",
    re.I,
)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.I)
_WEEKDAY = re.compile(rf"\b({'|'.join(words.WEEKDAYS)})s?\b", re.I)
_TIME = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|\b([01]?\d|2[0-3]):([0-5]\d)\b(?!:)", re.I
)
_QUARTER = re.compile(r"\bQ([1-4])(?:\s+(\d{4}))?\b")
_NUMBER = re.compile(
    r"(?<![\w.,/-])(?P<currency>[$€£¥₽])?"
    r"(?P<value>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*)"
    rf"(?P<unit>\s?(?:{words.UNITS}))?(?![\w])"
)
_LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)](?=\s)", re.M)
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+\b")
_PASCAL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){2,}\b")
_CALL = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\(\)")
_DOTTED = re.compile(r"\b[a-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_VERSIONED = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*-\d+(?:\.\d+)+\b")
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+(?:=[^\s,;]+)?")
_DEFINED = re.compile(
    r"^\s*(?:async\s+)?(?:def|class|fn|func|function|struct|enum|interface|type|const|let|var)"
    r"\s+([A-Za-z_]\w*)",
    re.M,
)
_CAPITALIZED = re.compile(
    r"(?<![\w'’-])[A-Z][\w’'&.-]*\w"
    r"(?:\s+(?:(?:of|de|da|do|dos|di|del|van|von|der|den|la|le|du|&)\s+)?[A-Z][\w’'&-]*\w)*"
)
_ACRONYM = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]{1,}s?(?![\w-])")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]”’]*\s+|\n\s*")


# --- the keys of each kind of match --------------------------------------------------------------

KeyOf = Callable[[re.Match[str]], set[str] | None]


def _iso_date(match: re.Match[str]) -> set[str] | None:
    key = date_key(int(match[1]), int(match[2]), int(match[3]))
    return {key} if key else None


def _numeric_date(match: re.Match[str]) -> set[str] | None:
    first, second, year = int(match[1]), int(match[2]), year_of(match[3])
    # Day and month are ambiguous (03/04): either reading finds it again.
    keys = {date_key(year, first, second), date_key(year, second, first)} - {None}
    return {key for key in keys if key} or None


def _month_day(match: re.Match[str]) -> set[str] | None:
    key = date_key(year_of(match[3]), words.MONTHS[match[1].lower()], int(match[2]))
    return {key} if key else None


def _day_month(match: re.Match[str]) -> set[str] | None:
    key = date_key(year_of(match[3]), words.MONTHS[match[2].lower()], int(match[1]))
    return {key} if key else None


def _day_range(match: re.Match[str]) -> set[str] | None:
    month, year = words.MONTHS[match[3].lower()], year_of(match[4])
    keys = {date_key(year, month, int(match[1])), date_key(year, month, int(match[2]))}
    return {key for key in keys if key} or None


def _month_year(match: re.Match[str]) -> set[str] | None:
    key = date_key(year_of(match[2]), words.MONTHS[match[1].lower()], None)
    return {key} if key else None


def _weekday(match: re.Match[str]) -> set[str] | None:
    return {"w:" + match[1].lower()}


def _time(match: re.Match[str]) -> set[str] | None:
    if match[3]:
        key = minutes_key(int(match[1]), int(match[2] or 0), match[3])
    else:
        key = minutes_key(int(match[4]), int(match[5]), None)
    return {key} if key else None


def _quarter(match: re.Match[str]) -> set[str] | None:
    return {f"q:{match[1]}"}


def _number(match: re.Match[str]) -> set[str] | None:
    value, unit, currency = match["value"], match["unit"] or "", match["currency"]
    # A lone small number ("2 options", "step 3") is rarely what a summary must keep.
    if len(value.replace(",", "").replace(".", "")) < 2 and not (unit or currency):
        return None
    if unit.strip().lower() in ("%", "percent", "per cent"):
        # A share is not the same number of anything else: "3%" is not "three months".
        return {"p" + key[1:] for key in number_keys(value)}
    return number_keys(value, unit)


def _any_case(match: re.Match[str]) -> set[str] | None:
    return {"i:" + match[0].strip().lower()}


def _url(match: re.Match[str]) -> set[str] | None:
    return {url_key(match[0].rstrip(".,;:!?"))}


def command_keys(command: str) -> set[str]:
    """A command is found again with its whitespace folded, in any case."""
    return {"i:" + " ".join(command.split()).lower()}


# --- reading a text ----------------------------------------------------------------------------


class _Reading:
    """One text being read. What a rule takes is masked, so no later rule reads it again."""

    def __init__(self, text: str, names_in_text: Collection[str]) -> None:
        self.original = text
        self.masked = text
        self.names_in_text = names_in_text
        self.sentences = sentence_spans(text)
        self.found: list[Detail] = []

    def sentence_at(self, index: int) -> str:
        for start, end in self.sentences:
            if start <= index < end:
                return " ".join(self.original[start:end].split())
        return ""

    def mask(self, start: int, end: int) -> None:
        self.masked = self.masked[:start] + " " * (end - start) + self.masked[end:]

    def add(self, kind: DetailKind, start: int, end: int, keys: Collection[str]) -> None:
        text = self.original[start:end].strip().rstrip(".,;:")
        if text and keys:
            self.found.append(Detail(kind, text, frozenset(keys), self.sentence_at(start)))
        self.mask(start, end)

    def take(self, pattern: re.Pattern[str], kind: DetailKind, key: KeyOf) -> None:
        for match in list(pattern.finditer(self.masked)):
            keys = key(match)
            if keys is not None:
                self.add(kind, match.start(), match.end(), keys)

    # --- code: fenced blocks and inline spans -----------------------------------------------

    def code_blocks(self) -> None:
        for block in list(_FENCE.finditer(self.masked)):
            language = block[2].lower()
            offset = block.start(3)
            for line in re.finditer(r"\S[^\n]*", block[3]):
                command = _shell_command(language, line[0].rstrip())
                if command is not None:
                    end = offset + line.start() + len(line[0].rstrip())
                    self.add(DetailKind.COMMAND, end - len(command), end, command_keys(command))
            for defined in _DEFINED.finditer(block[3]):
                name = defined[1]
                self.found.append(
                    Detail(
                        DetailKind.IDENTIFIER, name, frozenset({"s:" + name}), defined[0].strip()
                    )
                )
            self.mask(block.start(), block.end())

    def inline_code(self) -> None:
        for span in list(_INLINE_CODE.finditer(self.masked)):
            code = span[1].strip()
            start, end = span.start(1), span.end(1)
            first = code.split(" ", 1)[0]
            if first in words.COMMANDS and (" " in code or first in words.PROSE_COMMANDS):
                self.add(DetailKind.COMMAND, start, end, command_keys(code))
            elif _URL.fullmatch(code):
                self.add(DetailKind.URL, start, end, {url_key(code)})
            elif " " not in code and (
                _ROOTED_PATH.fullmatch(code)
                or _WINDOWS_PATH.fullmatch(code)
                or _FILE_NAME.fullmatch(code)
                or (_RELATIVE_PATH.fullmatch(code) and "/" in code)
            ):
                self.add(DetailKind.PATH, start, end, {"s:" + code.rstrip("/")})
            else:
                self.add(DetailKind.IDENTIFIER, start, end, {"i:" + code.lower()})
            self.mask(span.start(), span.end())

    def prose_commands(self) -> None:
        for word in list(re.finditer(r"(?<![\w/.-])([a-z][\w-]*)(?=\s)", self.masked)):
            if word[1] not in words.PROSE_COMMANDS or not self.masked[word.start()].strip():
                continue
            end = word.end()
            for argument in re.finditer(r"\s+(\S+)", self.masked[end:]):
                token = argument[1]
                bare = token.rstrip(".,;:!?")
                if (
                    not bare
                    or bare.lower() in words.PROSE_COMMAND_STOP
                    or bare[0].isupper()
                    or not self.masked[end : end + argument.end()].strip()
                ):
                    break
                end += argument.end() - (len(token) - len(bare))
                if bare != token:
                    break
            if end > word.end():
                command = self.masked[word.start() : end]
                self.add(DetailKind.COMMAND, word.start(), end, command_keys(command))

    # --- names ------------------------------------------------------------------------------

    def names(self) -> None:
        for match in list(_ACRONYM.finditer(self.masked)):
            acronym = match[0]
            if acronym.rstrip("s") not in words.COMMON_ACRONYMS and not acronym.isdigit():
                self.add(DetailKind.NAME, match.start(), match.end(), {"i:" + acronym.lower()})
        for match in list(_CAPITALIZED.finditer(self.masked)):
            pieces = list(re.finditer(r"\S+", match[0]))
            if self._starts_sentence(match.start()):
                # "Postgres is fast." names something only if it is capitalized elsewhere too.
                opening = _bare(pieces[0][0])
                if opening.lower() in words.COMMON_CAPITALIZED or (
                    len(pieces) == 1 and opening not in self.names_in_text
                ):
                    pieces = pieces[1:]
            while pieces and pieces[0][0].lower() in words.GENERIC_NAME_WORDS:
                pieces = pieces[1:]
            parts = [_bare(piece[0]) for piece in pieces]
            telling = [
                part.lower()
                for part in parts
                if part.lower() not in words.GENERIC_NAME_WORDS
                and part.lower() not in words.COMMON_CAPITALIZED
            ]
            if not telling or any(
                part.lower() in words.MONTHS or part.lower() in words.WEEKDAYS for part in parts
            ):
                continue
            start, end = match.start() + pieces[0].start(), match.start() + pieces[-1].end()
            self.add(DetailKind.NAME, start, end, {"a:" + " ".join(telling)})

    def _starts_sentence(self, index: int) -> bool:
        before = self.original[:index].rstrip(" \t\"'“‘(*-•>#")
        return not before or before[-1] in ".!?:\n"

    # --- sentences: decisions and rules --------------------------------------------------------

    def sentences_marked(self, prose: str) -> None:
        for start, end in self.sentences:
            sentence = " ".join(prose[start:end].split())
            if not sentence:
                continue
            if words.CONSTRAINT.search(sentence):
                kind = DetailKind.CONSTRAINT
            elif words.DECISION.search(sentence):
                kind = DetailKind.DECISION
            else:
                continue
            meaning = content_words(sentence)
            if len(meaning) >= 2:
                original = " ".join(self.original[start:end].split())
                anchors = tuple(d.keys for d in self.found if d.sentence == original)
                keys = frozenset("c:" + w for w in meaning)
                self.found.append(Detail(kind, original, keys, original, anchors))


def _shell_command(language: str, line: str) -> str | None:
    """The command a line of a code block runs, if it is a shell line."""
    command = line.removeprefix("$ ").strip()
    if not command or command.startswith("#"):
        return None
    shell = language in words.SHELL_LANGUAGES or line.startswith("$ ")
    return command if shell or (not language and command.split()[0] in words.COMMANDS) else None


def _bare(word: str) -> str:
    """A word without a possessive ending."""
    return word.removesuffix("’s").removesuffix("'s").rstrip("’'")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence (or line) of `text` starts and ends."""
    spans: list[tuple[int, int]] = []
    start = 0
    for gap in _SENTENCE_BREAK.finditer(text):
        if text[start : gap.start()].strip():
            spans.append((start, gap.start()))
        start = gap.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def capitalized_mid_sentence(texts: Collection[str]) -> frozenset[str]:
    """Words written with a capital inside a sentence somewhere in `texts`: names, most likely,
    so the same word opening a sentence is a name too."""
    found: set[str] = set()
    for text in texts:
        for match in re.finditer(r"(?<=[a-z0-9,;] )([A-Z][\w-]*\w)", text):
            if match[1].lower() not in words.COMMON_CAPITALIZED:
                found.add(match[1])
    return frozenset(found)


def details_in(text: str, names_in_text: Collection[str] = ()) -> list[Detail]:
    """Every detail `text` holds, in the order the rules find them.

    `names_in_text` are words known as names (see `capitalized_mid_sentence`): a sentence that
    opens with one of them names it.
    """
    reading = _Reading(text, names_in_text)
    reading.code_blocks()
    reading.inline_code()
    prose = reading.masked
    reading.take(_EMAIL, DetailKind.URL, _any_case)
    reading.take(_URL, DetailKind.URL, _url)
    reading.take(_ISO_DATE, DetailKind.DATE, _iso_date)
    reading.take(_NUMERIC_DATE, DetailKind.DATE, _numeric_date)
    for pattern in (_WINDOWS_PATH, _ROOTED_PATH, _FILE_NAME):
        reading.take(pattern, DetailKind.PATH, _path_keys)
    reading.take(_RELATIVE_PATH, DetailKind.PATH, _relative_path_keys)
    reading.prose_commands()
    for pattern, key in (
        (_DAY_RANGE, _day_range),
        (_MONTH_DAY, _month_day),
        (_DAY_MONTH, _day_month),
        (_MONTH_YEAR, _month_year),
        (_WEEKDAY, _weekday),
        (_TIME, _time),
        (_QUARTER, _quarter),
    ):
        reading.take(pattern, DetailKind.DATE, key)
    for pattern in (_VERSIONED, _OPTION, _CALL, _SNAKE, _CAMEL, _PASCAL, _DOTTED):
        reading.take(pattern, DetailKind.IDENTIFIER, _any_case)
    for marker in list(_LIST_MARKER.finditer(reading.masked)):
        reading.mask(marker.start(), marker.end())
    reading.take(_NUMBER, DetailKind.NUMBER, _number)
    reading.names()
    reading.sentences_marked(prose)
    return reading.found


def _path_keys(match: re.Match[str]) -> set[str] | None:
    path = match[0].rstrip("/.,;:")
    if len(path) < 2 or path in ("..", "~"):
        return None
    return {"s:" + path}


def _relative_path_keys(match: re.Match[str]) -> set[str] | None:
    path = match[0].rstrip("/.,;:")
    segments = path.split("/")
    # "and/or", "TCP/IP", "read/write": a path has a file name or at least three parts.
    if len(segments) < 3 and not _FILE_NAME.fullmatch(segments[-1]):
        return None
    if any(not segment for segment in segments):
        return None
    return {"s:" + path}
