"""Adding, fixing and removing one `[profiles.<name>]` table of the user's config file, the
way F4 does: the lines of that table alone change, the rest of the file (comments, order,
other tables) stays as the user wrote it, and a change that would mean anything else is
refused with what to write by hand."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxchat.config.files import write_private_file
from ctxchat.config.template import OLD_PROMISE, PROMISE, table_header

ProfileValues = Mapping[str, str | None]
"""A profile's keys as F4 sets them (base_url, model, engine, api_key_env, api_key): a
string is written, None removes the key; keys not named stay as they are."""


class ProfileEditError(Exception):
    """The config could not be changed as asked; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class _Table:
    """Where a `[profiles.<name>]` table is: its header line and the line after its last."""

    start: int
    end: int


def _header_path(line: str) -> tuple[str, ...] | None:
    """The dotted path a `[table]` header line names (None: not a plain table header)."""
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    try:
        parsed: object = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    while isinstance(parsed, dict) and len(parsed) == 1:
        key, parsed = next(iter(parsed.items()))
        path.append(key)
    return tuple(path) if parsed == {} else None


def _is_header(line: str) -> bool:
    return line.lstrip().startswith("[")


def _next_header(lines: list[str], after: int) -> int:
    """The index of the first table header after line `after` (the end when none)."""
    return next((i for i in range(after + 1, len(lines)) if _is_header(lines[i])), len(lines))


def _find(lines: list[str], name: str) -> _Table | None:
    start = next(
        (i for i, line in enumerate(lines) if _header_path(line) == ("profiles", name)), None
    )
    if start is None:
        return None
    end = _next_header(lines, start)
    # The blank lines and comments just above the next table are that table's.
    while end - 1 > start and (
        not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")
    ):
        end -= 1
    return _Table(start, end)


def _line(key: str, value: str) -> str:
    import tomli_w  # only needed when writing

    return tomli_w.dumps({key: value})


def _key_of(line: str) -> str | None:
    """The key a `key = value` line sets (None: a comment, a blank or another shape)."""
    try:
        parsed = tomllib.loads(line)
    except tomllib.TOMLDecodeError:
        return None
    return next(iter(parsed)) if len(parsed) == 1 else None


def _read(path: Path) -> tuple[str, dict[str, object]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError) as error:
        raise ProfileEditError(f"{path} cannot be read: {error}") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProfileEditError(f"{path} is not valid TOML ({error}): fix it first.") from None


def _profiles(data: Mapping[str, object]) -> dict[str, object]:
    profiles = data.get("profiles", {})
    return dict(profiles) if isinstance(profiles, dict) else {}


def _by_hand(path: Path, name: str, values: ProfileValues) -> str:
    """What to write by hand when the file's shape keeps ctxchat from writing it."""
    shown = "".join(_line(k, v) for k, v in values.items() if v is not None and k != "api_key")
    return (
        f"ctxchat could not change [profiles.{name}] in {path} without touching the rest of "
        f"the file (a profile written as an inline table or with dotted keys). Write it by "
        f"hand:\n[profiles.{name}]\n{shown}"
    )


def save_profile(path: Path, name: str, values: ProfileValues) -> bool:
    """Add profile `name` to the config at `path`, or change the keys `values` names in it;
    True if the file changed. Raises ProfileEditError (the file untouched) when the result
    would change anything but that table, or would not load."""
    text, before = _read(path)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    table = _find(lines, name)
    if table is None:
        if name in _profiles(before):
            raise ProfileEditError(_by_hand(path, name, values))
        block = [table_header("profiles", name)] + [
            _line(k, v) for k, v in values.items() if v is not None
        ]
        separator = ["\n"] if lines and lines[-1].strip() else []
        lines += separator + block
    else:
        body = lines[table.start + 1 : table.end]
        for key, value in values.items():
            at = next((i for i, line in enumerate(body) if _key_of(line) == key), None)
            if at is not None and value is None:
                del body[at]
            elif at is not None and value is not None:
                body[at] = _line(key, value)
            elif value is not None:
                body.insert(_after_keys(body), _line(key, value))
        lines[table.start + 1 : table.end] = body
    new_profile = {
        **(_profiles(before).get(name) or {}),  # type: ignore[dict-item]
        **{k: v for k, v in values.items() if v is not None},
    }
    for key in [k for k, v in values.items() if v is None]:
        new_profile.pop(key, None)
    expected = {**before, "profiles": {**_profiles(before), name: new_profile}}
    return _write(path, "".join(lines), expected, lambda: _by_hand(path, name, values))


def _after_keys(body: list[str]) -> int:
    """Where a new key goes in a table's lines: after its last key."""
    keys = [i for i, line in enumerate(body) if _key_of(line) is not None]
    return keys[-1] + 1 if keys else 0


def remove_profile(path: Path, name: str) -> None:
    """Take profile `name` out of the config at `path`. Raises ProfileEditError (the file
    untouched) when it is not there as a table of its own."""
    text, before = _read(path)
    summary = before.get("summary")
    for key, named in (
        ("default_profile", before.get("default_profile")),
        ("[summary] profile", summary.get("profile") if isinstance(summary, dict) else None),
    ):
        if named == name:
            raise ProfileEditError(
                f"{key} in {path} names {name}: name another profile there first."
            )
    lines = text.splitlines(keepends=True)
    table = _find(lines, name)
    if table is None:
        raise ProfileEditError(
            f"{path} has no [profiles.{name}] table ctxchat can take out: remove it by hand."
        )
    start = table.start
    # The comment lines just above its header are the table's, and one blank line before.
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    if start == 0:
        start = table.start  # the file's own opening comment, not the table's
    elif not lines[start - 1].strip():
        start -= 1
    end = table.end
    # Its sub-tables ([profiles.<name>.headers]) go with it.
    for at in range(len(lines) - 1, table.end - 1, -1):
        named = _header_path(lines[at])
        if named is not None and named[:2] == ("profiles", name) and len(named) > 2:
            after = _next_header(lines, at)
            if at == end or not "".join(lines[end:at]).strip():
                end = after  # right after the table: one block
            else:
                del lines[at:after]
    del lines[start:end]
    profiles = {k: v for k, v in _profiles(before).items() if k != name}
    expected = {**before, "profiles": profiles}
    if not profiles:
        expected.pop("profiles")
    why = f"ctxchat could not take [profiles.{name}] out of {path} alone: remove it by hand."
    _write(path, "".join(lines), expected, lambda: why)


def _write(path: Path, text: str, expected: Mapping[str, object], why: Callable[[], str]) -> bool:
    """Write `text` when it reads back as `expected` (else ProfileEditError: `why()`)."""
    text = text.replace(OLD_PROMISE, PROMISE)
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise ProfileEditError(why()) from None
    if after != expected:
        raise ProfileEditError(why())
    try:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    write_private_file(path, text, overwrite=True)
    if mode != 0o600 and os.name == "posix":
        # A file the user made readable to others stays so unless it now holds a key.
        holds_key = any(isinstance(p, dict) and p.get("api_key") for p in _profiles(after).values())
        if not holds_key:
            os.chmod(path, mode)
    return True
