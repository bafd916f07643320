"""GGUF model files already on this machine, where other tools keep them: LM Studio, the
Hugging Face cache, llama.cpp's cache, Ollama's store, and a folder the user names."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxchat.engine.files import GGUF_MAGIC, GgufFile, free_memory, needed_memory

MODELS_DIR_ENV = "CTXCHAT_MODELS_DIR"
"""A folder of .gguf files to offer too."""
MOST_FOUND = 50
_SMALLEST = 1024 * 1024
"""Bytes: a smaller .gguf is a fragment (a vocabulary, a test file), not a model."""


@dataclass(frozen=True, slots=True)
class FoundModel:
    """A model file found: what it is called, where, by which tool, its size, and whether
    it fits in the memory free now."""

    name: str
    path: Path
    tool: str
    size: int
    fits: bool


def places(env: Mapping[str, str] | None = None) -> list[tuple[str, Path]]:
    """(tool, folder) where GGUF files are kept, the user's own first."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    cache = Path(env.get("XDG_CACHE_HOME") or home / ".cache")
    found: list[tuple[str, Path]] = []
    if env.get(MODELS_DIR_ENV):
        found.append(("your folder", Path(env[MODELS_DIR_ENV]).expanduser()))
    found += [
        ("LM Studio", home / ".lmstudio" / "models"),
        ("LM Studio", cache / "lm-studio" / "models"),
        (
            "Hugging Face",
            Path(env.get("HF_HUB_CACHE") or "")
            if env.get("HF_HUB_CACHE")
            else Path(env.get("HF_HOME") or cache / "huggingface") / "hub",
        ),
        ("llama.cpp", Path(env.get("LLAMA_CACHE") or cache / "llama.cpp")),
        ("Ollama", Path(env.get("OLLAMA_MODELS") or home / ".ollama" / "models")),
    ]
    return found


def find_models(env: Mapping[str, str] | None = None) -> list[FoundModel]:
    """The GGUF models in those places, each file once, largest last (at most MOST_FOUND)."""
    free = free_memory()
    seen: set[Path] = set()
    found: list[FoundModel] = []
    for tool, folder in places(env):
        if not folder.is_dir():
            continue
        listed = _ollama(folder) if tool == "Ollama" else _gguf_files(folder)
        for name, path in listed:
            try:
                real, size = path.resolve(), path.stat().st_size
            except OSError:
                continue
            if real in seen or size < _SMALLEST or not _is_gguf(real):
                continue
            seen.add(real)
            fits = free is None or needed_memory(GgufFile(real, size)) <= free
            found.append(FoundModel(name, path, tool, size, fits))
            if len(found) >= MOST_FOUND:
                break
    return sorted(found, key=lambda model: (model.size, model.name))


def _gguf_files(folder: Path) -> Iterator[tuple[str, Path]]:
    for root, _, files in os.walk(folder, followlinks=False):
        for name in sorted(files):
            if name.endswith(".gguf") and "mmproj" not in name:  # vision projectors
                yield name.removesuffix(".gguf"), Path(root) / name


def _ollama(folder: Path) -> Iterator[tuple[str, Path]]:
    """Ollama keeps models as blobs named by hash; its manifests say which is whose."""
    manifests = folder / "manifests"
    for root, _, files in os.walk(manifests):
        for tag in sorted(files):
            manifest = Path(root) / tag
            try:
                layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers", [])
            except (OSError, ValueError, AttributeError):
                continue
            for layer in layers:
                if isinstance(layer, dict) and layer.get("mediaType", "").endswith(".model"):
                    blob = folder / "blobs" / str(layer.get("digest", "")).replace(":", "-")
                    yield f"{manifest.parent.name}:{tag}", blob


def _is_gguf(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(4) == GGUF_MAGIC
    except OSError:
        return False
