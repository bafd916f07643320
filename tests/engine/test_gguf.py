"""What the engine reads of a GGUF file before it loads one: its header, the window the
model was trained for, and whether it fits in memory."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ctxchat.engine.errors import EngineError
from ctxchat.engine.files import GgufFile, check_fits, check_gguf, trained_window


def text(value: str) -> bytes:
    data = value.encode()
    return struct.pack("<Q", len(data)) + data


def gguf(*pairs: bytes) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, 1, len(pairs)) + b"".join(pairs)


ARCHITECTURE = text("general.architecture") + struct.pack("<I", 8) + text("llama")
VOCABULARY = text("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2) + text("a") + text("b")
SCORES = text("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, 2) + struct.pack("<ff", 0, 1)
WINDOW = text("llama.context_length") + struct.pack("<II", 4, 131_072)


def test_the_trained_window_is_read_past_arrays_of_every_kind(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(gguf(ARCHITECTURE, VOCABULARY, SCORES, WINDOW))

    assert trained_window(model) == 131_072
    assert check_gguf(model).size == model.stat().st_size


def test_a_file_that_does_not_say_has_no_trained_window(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(gguf(ARCHITECTURE, VOCABULARY))
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(gguf(ARCHITECTURE, WINDOW)[:-3])

    assert trained_window(model) is None
    assert trained_window(cut) is None


def test_a_header_that_makes_no_sense_is_damaged(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 5))

    with pytest.raises(EngineError, match="is damaged or of an unknown GGUF version"):
        check_gguf(model)


def test_a_model_larger_than_the_memory_free_is_refused_with_both_figures() -> None:
    model = GgufFile(Path("big.gguf"), 5 * 1024**3)

    with pytest.raises(EngineError) as refused:
        check_fits(model, 3 * 1024**3)
    check_fits(model, 6 * 1024**3)  # fits

    assert str(refused.value) == (
        "big.gguf needs about 5.1 GB of memory and only 3.0 GB is free: close other "
        "programs or choose a smaller model."
    )
