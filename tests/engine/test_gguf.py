"""What the engine reads of a GGUF file before it loads one: its header, the window the
model was trained for, and whether it fits in memory."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ctxchat.engine.errors import EngineError
from ctxchat.engine.files import (
    GgufFile,
    check_fits,
    check_gguf,
    model_shape,
    trained_window,
    window_to_serve,
)


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


def number(key: str, value: int) -> bytes:
    return text(f"llama.{key}") + struct.pack("<II", 4, value)


# A Llama 3.1 8B: 32 layers, 8 of its 32 heads for keys and values, 4,096 wide: 128 KB of
# cache a token.
LLAMA_8B = (
    ARCHITECTURE,
    WINDOW,
    number("block_count", 32),
    number("embedding_length", 4096),
    number("attention.head_count", 32),
    number("attention.head_count_kv", 8),
    VOCABULARY,
)
GB = 1024**3


def llama(tmp_path: Path) -> GgufFile:
    path = tmp_path / "llama-8b.gguf"
    path.write_bytes(gguf(*LLAMA_8B))
    return GgufFile(path, int(4.6 * GB))


def test_the_cache_a_token_takes_is_read_from_the_models_shape(tmp_path: Path) -> None:
    shape = model_shape(llama(tmp_path).path)
    assert shape is not None
    assert shape.context_length == 131_072
    assert shape.cache_bytes_per_token == 128 * 1024


def test_the_window_is_what_the_model_was_trained_for_at_most_16k_and_said_so(
    tmp_path: Path,
) -> None:
    model = llama(tmp_path)
    assert window_to_serve(model, "llama-8b", 0, 16 * GB) == (
        16_384,
        "ctxchat's engine serves 16,384 of the 131,072 tokens llama-8b was trained for, the "
        "most it serves unless asked (context_window in its profile): each token of window "
        "takes 128 KB of memory.",
    )
    assert window_to_serve(model, "llama-8b", 32_768, 6 * GB) == (32_768, "")


def test_memory_caps_the_window_and_too_little_refuses_the_model(tmp_path: Path) -> None:
    model = llama(tmp_path)
    # 5 GB free: the model and the engine take 4.7 GB, 0.3 GB leaves room for 2,304 tokens.
    window, note = window_to_serve(model, "llama-8b", 0, 5 * GB)
    assert window == 2_304
    assert note == (
        "ctxchat's engine serves 2,304 of the 131,072 tokens llama-8b was trained for: the "
        "cache for more would not fit in the 5.0 GB of memory free (context_window in its "
        "profile asks for another size)."
    )
    with pytest.raises(EngineError) as refused:
        window_to_serve(model, "llama-8b", 0, int(4.7 * GB))
    assert str(refused.value) == (
        "llama-8b.gguf needs about 4.8 GB of memory with a 1,024-token window and only 4.7 GB "
        "is free: close other programs or choose a smaller model."
    )


def test_a_model_that_says_nothing_of_its_window_gets_llamas_own(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf(ARCHITECTURE, VOCABULARY))
    assert window_to_serve(GgufFile(path, GB), "m", 0, 2 * GB) == (0, "")
