"""The numpy MiniLM encoder gives sentence-transformers' own vectors, and they mean something.

reference_minilm.npy holds the vectors sentence-transformers (with torch) made for
reference_sentences.json: English, Russian, code, an empty text, odd whitespace and a text
past the 256-token window. make_reference.py rebuilds it.
"""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ctxchat.embeddings.availability import REQUIRED

for _module in REQUIRED:
    pytest.importorskip(_module, reason=f"the embeddings extra is not installed ({_module})")

import numpy as np  # noqa: E402

from ctxchat.embeddings.bert import erf, gelu  # noqa: E402

if TYPE_CHECKING:
    from ctxchat.embeddings.encoder import MiniLMEncoder

HERE = Path(__file__).resolve().parent
SENTENCES: list[str] = json.loads((HERE / "reference_sentences.json").read_text(encoding="utf-8"))
REFERENCE = np.load(HERE / "reference_minilm.npy")


def test_erf_and_gelu_to_float32_precision() -> None:
    x = np.linspace(-12, 12, 4801, dtype=np.float32)
    exact = np.array([math.erf(v) for v in x.astype(np.float64)])
    assert np.abs(erf(x.copy()) - exact).max() < 5e-7  # A&S 1.5e-7 plus float32 rounding
    gelu_exact = (
        0.5 * x.astype(np.float64) * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x]))
    )
    assert np.abs(gelu(x) - gelu_exact).max() < 5e-7


def test_vectors_match_sentence_transformers(encoder: MiniLMEncoder) -> None:
    vectors = encoder.encode(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384) == REFERENCE.shape
    assert vectors.dtype == np.float32
    cosines = np.sum(vectors * REFERENCE, axis=1)
    assert cosines.min() > 0.9999, cosines
    assert np.abs(vectors - REFERENCE).max() < 1e-4


def test_a_text_alone_gets_the_vector_it_gets_in_a_padded_batch(encoder: MiniLMEncoder) -> None:
    alone = np.stack([encoder.encode([text])[0] for text in SENTENCES])
    assert np.sum(alone * encoder.encode(SENTENCES), axis=1).min() > 0.99999


def test_shape_and_normalisation(encoder: MiniLMEncoder) -> None:
    assert encoder.model_name == "all-MiniLM-L6-v2"
    assert encoder.dimensions == 384
    assert encoder.max_seq_length == 256
    assert encoder.token_counts(["", "hello world", SENTENCES[-1]]) == [2, 4, 256]
    assert encoder.encode([]).shape == (0, 384)
    norms = np.linalg.norm(encoder.encode(["one", "two words", ""]), axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-6)


def test_a_paraphrase_is_nearer_than_an_unrelated_sentence(encoder: MiniLMEncoder) -> None:
    decision, question, cat = encoder.encode(
        ["We chose Postgres as our DB", "What database did we pick?", "The cat sat on the mat"]
    )
    assert float(question @ decision) > 0.6
    assert float(question @ cat) < 0.1


def test_encoding_from_two_threads_at_once(encoder: MiniLMEncoder) -> None:
    expected = encoder.encode(SENTENCES)
    results: dict[int, np.ndarray] = {}

    def work(slot: int) -> None:
        results[slot] = encoder.encode(SENTENCES)

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for vectors in results.values():
        np.testing.assert_allclose(vectors, expected, atol=1e-6)
