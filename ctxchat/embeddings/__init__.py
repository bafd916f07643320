"""Semantic recall, the optional `embeddings` extra: a local MiniLM encoder, vectors in the store.

Importing this package imports none of the extra's dependencies: `available()` asks the import
system whether they are installed, and the classes and functions below are loaded on first use
(`from ctxchat.embeddings import MiniLMEncoder` imports numpy then, and raises
`EmbeddingsUnavailable` when the extra is missing).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ctxchat.embeddings.availability import EmbeddingsUnavailable, available, missing_packages

if TYPE_CHECKING:
    from ctxchat.embeddings.background import embed_pending
    from ctxchat.embeddings.candidates import semantic_candidates
    from ctxchat.embeddings.encoder import MiniLMEncoder
    from ctxchat.embeddings.fusion import fuse
    from ctxchat.embeddings.index import SemanticIndex

__all__ = [
    "EmbeddingsUnavailable",
    "MiniLMEncoder",
    "SemanticIndex",
    "available",
    "embed_pending",
    "fuse",
    "missing_packages",
    "semantic_candidates",
]

# Name → the module that defines it, imported when the name is first asked for.
_LAZY = {
    "MiniLMEncoder": "encoder",
    "SemanticIndex": "index",
    "embed_pending": "background",
    "semantic_candidates": "candidates",
    "fuse": "fusion",
}
# fusion works on RecallCandidate alone: it needs none of the extra.
_NEEDS_EXTRA = {"encoder", "index", "background", "candidates"}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module_name in _NEEDS_EXTRA:
        missing = missing_packages()
        if missing:
            raise EmbeddingsUnavailable(missing)
    module = importlib.import_module(f"{__name__}.{module_name}")
    return getattr(module, name)
