"""The engine's faults, each one line a user can act on."""

from __future__ import annotations


class EngineError(Exception):
    """The engine cannot run the model (not installed, not a GGUF file, too large for the
    memory free, a port taken, it failed to load): `str()` is one sentence and what to do."""


class EngineLoadCancelled(EngineError):
    """The user cancelled loading a model: the engine that was loading it is stopped."""
