"""GGUF files found where other tools keep them, each once, with their size and whether
they fit in the memory free."""

from __future__ import annotations

import json
from pathlib import Path

from ctxchat.engine.files import free_memory
from ctxchat.engine.found import find_models

MODEL_SIZE = 2 * 1024 * 1024


def model_file(path: Path, size: int = MODEL_SIZE, head: bytes = b"GGUF") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        out.write(head)
        out.truncate(size)  # sparse
    return path


def test_models_are_found_where_each_tool_keeps_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    model_file(home / ".lmstudio/models/qwen/qwen-1.5b-q4_k_m.gguf")
    model_file(home / ".lmstudio/models/qwen/mmproj-qwen.gguf")  # a vision part, not a model
    model_file(home / ".lmstudio/models/notes/readme.gguf", head=b"text")
    model_file(home / ".lmstudio/models/tiny/vocab.gguf", size=4096)
    hub = home / ".cache/huggingface/hub/models--x--phi/"
    blob = model_file(hub / "blobs/abc123", size=3 * MODEL_SIZE)
    (hub / "snapshots/main").mkdir(parents=True)
    (hub / "snapshots/main/phi-q8.gguf").symlink_to(blob)
    model_file(home / ".cache/llama.cpp/gemma.gguf", size=4 * MODEL_SIZE)
    ollama = home / ".ollama/models"
    model_file(ollama / "blobs/sha256-def456", size=5 * MODEL_SIZE)
    manifest = ollama / "manifests/registry.ollama.ai/library/llama3.2/3b"
    manifest.parent.mkdir(parents=True)
    layers = [
        {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:def456"},
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:0"},
    ]
    manifest.write_text(json.dumps({"layers": layers}))
    mine = model_file(tmp_path / "mine/own.gguf", size=6 * MODEL_SIZE)
    too_large = model_file(tmp_path / "mine/huge.gguf", size=2 * (free_memory() or 2**40))

    found = find_models({"HOME": str(home), "CTXCHAT_MODELS_DIR": str(mine.parent)})

    assert [(m.name, m.tool, m.size // MODEL_SIZE, m.fits) for m in found] == [
        ("qwen-1.5b-q4_k_m", "LM Studio", 1, True),
        ("phi-q8", "Hugging Face", 3, True),
        ("gemma", "llama.cpp", 4, True),
        ("llama3.2:3b", "Ollama", 5, True),
        ("own", "your folder", 6, True),
        ("huge", "your folder", too_large.stat().st_size // MODEL_SIZE, False),
    ]


def test_nothing_kept_anywhere_finds_nothing(tmp_path: Path) -> None:
    assert find_models({"HOME": str(tmp_path)}) == []
