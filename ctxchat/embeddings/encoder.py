"""MiniLMEncoder: sentence vectors from the packaged all-MiniLM-L6-v2, without torch.

Does what sentence-transformers does for this model (modules.json: Transformer, mean Pooling,
Normalize): the model's own WordPiece tokenizer truncating at max_seq_length (256), the BERT
forward pass in numpy, the mean of the token states under the attention mask, and L2
normalisation. A test holds it to vectors that sentence-transformers itself produced.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from safetensors.numpy import load_file
from threadpoolctl import ThreadpoolController
from tokenizers import Encoding, Tokenizer

from ctxchat.embeddings.availability import model_directory
from ctxchat.embeddings.bert import BertConfig, BertWeights, Floats, Ints, forward

MODEL_NAME = "all-MiniLM-L6-v2"

# Texts are encoded in batches of similar length (sorted, as sentence-transformers does).
# Padding costs only in attention (see bert.forward), which takes batch × heads × length²
# floats: a batch stops at BATCH_TOKENS padded positions to bound that (≤ 50 MB).
BATCH_SIZE = 32
BATCH_TOKENS = 4096


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class MiniLMEncoder:
    """Encodes texts into normalised float32 vectors (`dimensions` long).

    `encode` keeps no state between calls and numpy releases the GIL in its matrix products,
    so it may run in a worker thread while another thread encodes a draft.
    """

    model_name = MODEL_NAME

    def __init__(
        self,
        tokenizer: Tokenizer,
        config: BertConfig,
        weights: BertWeights,
        *,
        max_seq_length: int,
        normalize: bool = True,
    ) -> None:
        self._tokenizer = tokenizer
        self._config = config
        self._weights = weights
        self.max_seq_length = max_seq_length
        self._normalize = normalize

    @property
    def dimensions(self) -> int:
        return self._config.hidden_size

    @classmethod
    def load(cls, directory: Path | None = None, *, blas_threads: int | None = 1) -> MiniLMEncoder:
        """The packaged model (or a sentence-transformers model folder at `directory`).

        Raises EmbeddingsUnavailable when the model package is not installed. Reading the
        weights takes a moment: call this from a worker thread.

        numpy's BLAS is limited to `blas_threads` for the whole process (None leaves it
        alone). Embedding is background work that should leave the other cores to the UI and
        to a local model server; and where another process keeps a core busy, OpenBLAS's
        threads wait on each other: measured here, two threads encoded 2-6× slower than one.
        """
        directory = model_directory() if directory is None else directory
        if blas_threads is not None:
            ThreadpoolController().limit(limits=blas_threads, user_api="blas")
        config = BertConfig.from_json(_read_json(directory / "config.json"))
        pooling = _read_json(directory / "1_Pooling" / "config.json")
        if not pooling.get("pooling_mode_mean_tokens") or any(
            pooling.get(mode) for mode in ("pooling_mode_cls_token", "pooling_mode_max_tokens")
        ):
            raise ValueError(f"{directory}: only mean pooling is implemented.")
        max_seq_length = min(
            int(_read_json(directory / "sentence_bert_config.json")["max_seq_length"]),
            config.max_positions,
        )
        modules = _read_json(directory / "modules.json")
        normalize = any(str(m.get("type", "")).endswith(".Normalize") for m in modules)
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        # tokenizer.json carries the hub's settings (128 tokens, fixed padding);
        # sentence-transformers truncates at max_seq_length and pads per batch, as here.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_seq_length)
        weights = BertWeights.from_tensors(load_file(str(directory / "model.safetensors")), config)
        return cls(tokenizer, config, weights, max_seq_length=max_seq_length, normalize=normalize)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens each text is encoded as (at most max_seq_length; the rest is cut)."""
        return [len(encoding.ids) for encoding in self._tokenizer.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str]) -> Floats:
        """One vector per text (len(texts) × dimensions), in the order given."""
        result = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return result
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        start = 0
        while start < len(order):
            end = start + 1
            # Sorted by length, so the last text of a batch is its longest.
            while (
                end < len(order)
                and end - start < BATCH_SIZE
                and (end - start + 1) * len(encodings[order[end]].ids) <= BATCH_TOKENS
            ):
                end += 1
            chosen = order[start:end]
            result[chosen] = self._encode_batch([encodings[i] for i in chosen])
            start = end
        return result

    def _encode_batch(self, encodings: Sequence[Encoding]) -> Floats:
        length = max(len(e.ids) for e in encodings)
        ids: Ints = np.zeros((len(encodings), length), dtype=np.int64)
        mask: Ints = np.zeros((len(encodings), length), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = encoding.attention_mask
        states = forward(self._weights, self._config, ids, mask)
        # Mean pooling over the real tokens: each text's rows are contiguous in `states`.
        counts = mask.sum(axis=1)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        pooled: Floats = np.add.reduceat(states, starts, axis=0) / counts[:, None].astype(
            np.float32
        )
        if self._normalize:
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.maximum(norms, np.float32(1e-12))
        return pooled.astype(np.float32, copy=False)
