"""A BERT encoder's forward pass in numpy (inference only, float32), for MiniLM.

Follows Hugging Face's `BertModel` in eval mode: word + position + token-type embeddings and
a LayerNorm, then per layer self-attention (padding masked out), a residual LayerNorm, a GELU
feed-forward block and another residual LayerNorm. Dropout is off at inference, and the pooler
is not used (sentence-transformers pools the token states itself).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class BertConfig:
    """The few numbers of config.json the forward pass needs."""

    hidden_size: int
    heads: int
    layers: int
    intermediate_size: int
    max_positions: int
    layer_norm_eps: float

    @classmethod
    def from_json(cls, config: Mapping[str, Any]) -> BertConfig:
        activation = config.get("hidden_act", "gelu")
        if activation != "gelu":
            raise ValueError(f"Only the exact (erf) GELU is implemented, not {activation!r}.")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("Only absolute position embeddings are implemented.")
        return cls(
            hidden_size=int(config["hidden_size"]),
            heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]),
            intermediate_size=int(config["intermediate_size"]),
            max_positions=int(config["max_position_embeddings"]),
            layer_norm_eps=float(config["layer_norm_eps"]),
        )


@dataclass(frozen=True, slots=True)
class LayerWeights:
    """One transformer layer; dense weights are stored transposed (input × output) for `x @ w`."""

    qkv: Floats
    qkv_bias: Floats
    attention_out: Floats
    attention_out_bias: Floats
    attention_norm: tuple[Floats, Floats]
    intermediate: Floats
    intermediate_bias: Floats
    output: Floats
    output_bias: Floats
    output_norm: tuple[Floats, Floats]


@dataclass(frozen=True, slots=True)
class BertWeights:
    """All weights the forward pass reads, laid out for it."""

    word: Floats
    position: Floats
    token_type: Floats
    embedding_norm: tuple[Floats, Floats]
    layers: tuple[LayerWeights, ...]

    @classmethod
    def from_tensors(
        cls, tensors: Mapping[str, npt.NDArray[Any]], config: BertConfig
    ) -> BertWeights:
        """Pick the weights out of a checkpoint's tensors (names with or without `bert.`)."""
        named = {name.removeprefix("bert."): tensor for name, tensor in tensors.items()}

        def get(name: str) -> Floats:
            if name not in named:
                raise ValueError(f"The checkpoint has no tensor {name!r}.")
            return np.ascontiguousarray(named[name], dtype=np.float32)

        def dense(name: str) -> Floats:
            # PyTorch's Linear keeps (output × input); x @ w wants (input × output).
            return np.ascontiguousarray(get(f"{name}.weight").T)

        def norm(name: str) -> tuple[Floats, Floats]:
            return get(f"{name}.weight"), get(f"{name}.bias")

        layers = []
        for index in range(config.layers):
            prefix = f"encoder.layer.{index}"
            attention = f"{prefix}.attention"
            parts = ("query", "key", "value")
            layers.append(
                LayerWeights(
                    qkv=np.ascontiguousarray(
                        np.concatenate([dense(f"{attention}.self.{p}") for p in parts], axis=1)
                    ),
                    qkv_bias=np.concatenate([get(f"{attention}.self.{p}.bias") for p in parts]),
                    attention_out=dense(f"{attention}.output.dense"),
                    attention_out_bias=get(f"{attention}.output.dense.bias"),
                    attention_norm=norm(f"{attention}.output.LayerNorm"),
                    intermediate=dense(f"{prefix}.intermediate.dense"),
                    intermediate_bias=get(f"{prefix}.intermediate.dense.bias"),
                    output=dense(f"{prefix}.output.dense"),
                    output_bias=get(f"{prefix}.output.dense.bias"),
                    output_norm=norm(f"{prefix}.output.LayerNorm"),
                )
            )
        return cls(
            word=get("embeddings.word_embeddings.weight"),
            position=get("embeddings.position_embeddings.weight"),
            token_type=get("embeddings.token_type_embeddings.weight"),
            embedding_norm=norm("embeddings.LayerNorm"),
            layers=tuple(layers),
        )


def layer_norm(x: Floats, weights: tuple[Floats, Floats], eps: float) -> Floats:
    """Normalise each row to mean 0 and variance 1, then scale and shift (biased variance)."""
    gain, bias = weights
    centred: Floats = x - x.mean(axis=-1, keepdims=True)
    variance = np.mean(centred * centred, axis=-1, keepdims=True)
    centred /= np.sqrt(variance + np.float32(eps))
    centred *= gain
    centred += bias
    return centred


# Abramowitz & Stegun 7.1.26: |error| < 1.5e-7 (under 5e-7 once computed in float32).
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(
    np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)


def erf(x: Floats) -> Floats:
    """The error function, to float32 precision (numpy has none of its own)."""
    a = np.abs(x)
    t = _ERF_P * a
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    a1, a2, a3, a4, a5 = _ERF_A
    poly = a5 * t
    for coefficient in (a4, a3, a2, a1):
        poly += coefficient
        poly *= t
    np.square(a, out=a)
    # e^-80 is the smallest term kept: beyond, erf is ±1 in float32 anyway, and smaller
    # results would be subnormal floats, slow to compute with.
    np.minimum(a, np.float32(80.0), out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(np.float32(1.0), poly, out=poly)
    result: Floats = np.copysign(poly, x, out=poly)
    return result


def gelu(x: Floats) -> Floats:
    """BERT's GELU, the exact form x·Φ(x) (not the tanh approximation)."""
    phi = erf(x * np.float32(0.7071067811865476))
    phi += np.float32(1.0)
    phi *= np.float32(0.5)
    phi *= x
    return phi


# Padding gets a huge negative score before softmax, then its weight is zeroed exactly.
_MASKED = np.float32(-1e30)
_FLOOR = np.float32(-60.0)


def forward(weights: BertWeights, config: BertConfig, ids: Ints, mask: Ints) -> Floats:
    """The states of the real tokens of padded `ids` (batch × length), as (tokens × hidden).

    Rows come in order: the first text's tokens, then the second's, and so on. Everything but
    attention runs on the real tokens alone, so padding costs only in attention itself.
    """
    batch, length = ids.shape
    if length > config.max_positions:
        raise ValueError(f"{length} tokens is more than the model's {config.max_positions}.")
    hidden = config.hidden_size
    heads = config.heads
    head_size = hidden // heads
    eps = config.layer_norm_eps

    real = np.flatnonzero(mask.reshape(-1))
    # Positions count from each row's start, padding or not, as in BertModel; token type is
    # always 0 (one segment per text).
    x = weights.word[ids.reshape(-1)[real]] + weights.position[real % length]
    x += weights.token_type[0]
    x = layer_norm(x, weights.embedding_norm, eps)

    keep = (mask[:, None, None, :] > 0).astype(np.float32)
    masked = (np.float32(1.0) - keep) * _MASKED
    scale = np.float32(1.0 / np.sqrt(head_size))
    padded = np.zeros((batch * length, 3 * hidden), dtype=np.float32)
    for layer in weights.layers:
        padded[real] = x @ layer.qkv + layer.qkv_bias
        # (batch·length, 3·hidden) → three of (batch, heads, length, head_size); contiguous,
        # because numpy's batched matmul falls back to a slow loop on strided operands.
        qkv = np.ascontiguousarray(
            padded.reshape(batch, length, 3, heads, head_size).transpose(2, 0, 3, 1, 4)
        )
        query, key, value = qkv[0], qkv[1], qkv[2]
        scores = query @ np.ascontiguousarray(key.transpose(0, 1, 3, 2))
        scores *= scale
        scores += masked
        scores -= scores.max(axis=-1, keepdims=True)
        # Weights below e^-60 (≈1e-26) are raised to it: they add nothing to the sum, and the
        # subnormal floats they would underflow to make matrix products many times slower.
        np.maximum(scores, _FLOOR, out=scores)
        np.exp(scores, out=scores)
        scores *= keep
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ value).transpose(0, 2, 1, 3).reshape(batch * length, hidden)[real]
        attended = context @ layer.attention_out
        attended += layer.attention_out_bias
        attended += x
        x = layer_norm(attended, layer.attention_norm, eps)
        inner = x @ layer.intermediate
        inner += layer.intermediate_bias
        out = gelu(inner) @ layer.output
        out += layer.output_bias
        out += x
        x = layer_norm(out, layer.output_norm, eps)
    return x
