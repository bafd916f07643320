"""The code of the methods dataclasses generate, kept between runs as Python keeps a module's.

A dataclass's `__init__`, `__repr__`, `__eq__` and the rest are written as source text and
compiled when the class is defined, on every start: `__pycache__` keeps a module's bytecode,
not theirs. ctxchat and Textual define about 300 dataclasses before the app's first frame,
some 1,300 methods, and compiling them was about a third of the CPU time of the imports
(`bench/ui.py`). Here each compiled text is kept in the cache directory, in a file of the
interpreter's own bytecode version, and read back on the next start instead of compiled
again. Nothing else changes: the same text compiled the same way is the same code, and the
class is built by `dataclasses` as before.

The module reaches `dataclasses` at one point only: the `exec` its module calls (a global
name, looked up in the module before the builtins). A text not in the cache is compiled
as `exec` would; a cache file that cannot be read is a cache that is empty.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
from collections.abc import Callable, Collection, Mapping
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any, TypeVar

LARGEST = 8 * 1024 * 1024
"""Bytes: a file past this (texts of classes that changed, added up over versions) is written
again with this run's texts only."""

_Key = TypeVar("_Key")
_Value = TypeVar("_Value")

_FILENAME = "<string>"  # what `exec` of a text names its code, as dataclasses' own did


class CodeCache:
    """Compiled texts by their source, read from `path` and written back once at exit if a
    text was compiled this run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.used: set[str] = set()
        self.compiled = 0
        self.codes: dict[str, CodeType]
        self.codes, self.size = read_kept(
            path, marshal.loads, str, CodeType, (OSError, EOFError, ValueError, TypeError)
        )

    def exec(
        self, source: Any, globals: dict[str, Any] | None = None, locals: Any = None, /
    ) -> None:
        """`exec`, with a text's code taken from the cache (or compiled and kept)."""
        if isinstance(source, str):
            code = self.codes.get(source)
            if code is None:
                code = compile(source, _FILENAME, "exec", dont_inherit=True)
                self.codes[source] = code
                self.compiled += 1
            self.used.add(source)
            source = code
        builtins.exec(source, globals, locals)

    def save(self) -> None:
        """Write the cache if this run compiled a text (see `write_kept`)."""
        if self.compiled:
            write_kept(self.path, self.codes, self.used, self.size > LARGEST, marshal.dumps)


def read_kept(
    path: Path,
    loads: Callable[[bytes], object],
    key_type: type[_Key],
    value_type: type[_Value],
    damage: tuple[type[BaseException], ...],
) -> tuple[dict[_Key, _Value], int]:
    """A cache kept between runs as `write_kept` wrote it, and its file's size (0 when it
    cannot be read): the entries of the types asked for (none when reading or `loads`
    raises one of `damage`)."""
    try:
        data = path.read_bytes()
    except damage:
        return {}, 0
    try:
        loaded = loads(data)
    except damage:
        return {}, len(data)
    if not isinstance(loaded, dict):
        return {}, len(data)
    entries = {
        key: value
        for key, value in loaded.items()
        if isinstance(key, key_type) and isinstance(value, value_type)
    }
    return entries, len(data)


def write_kept(
    path: Path,
    kept: Mapping[_Key, _Value],
    used: Collection[_Key],
    too_large: bool,
    dumps: Callable[[dict[_Key, _Value]], bytes],
) -> None:
    """Write a cache kept between runs (`kept`, as `dumps` makes bytes of it) at exit,
    atomically: a second ctxchat may be writing its own. A file `too_large` keeps only what
    this run `used`. A cache that cannot be written is left as it was."""
    entries = {key: value for key, value in kept.items() if not too_large or key in used}
    with contextlib.suppress(OSError):
        path.parent.mkdir(exist_ok=True)  # not its parents: a directory gone is gone
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_bytes(dumps(entries))
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)


def cache_file(directory: Path) -> Path:
    """The file for this interpreter: marshal's format and bytecode change between versions."""
    tag = sys.implementation.cache_tag or sys.implementation.name
    return directory / f"dataclass-code.{tag}.{MAGIC_NUMBER.hex()}.marshal"


def keep_dataclass_code(directory: Path) -> CodeCache:
    """Serve dataclasses' compiled methods from (and into) the cache in `directory` for the
    rest of the process; the cache is written back at exit. Once per process: a second call
    returns the cache already in use."""
    serving = getattr(getattr(dataclasses, "exec", None), "__self__", None)
    if isinstance(serving, CodeCache):
        return serving
    cache = CodeCache(cache_file(directory))
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    atexit.register(cache.save)
    return cache
