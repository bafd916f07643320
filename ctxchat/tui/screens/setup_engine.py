"""First-run setup's offer of a model on this machine (ctxchat's own engine): what it is,
in words, and whether it is there to offer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from ctxchat.engine.found import FoundModel

ENGINE_CHOICE = "engine"
"""The setup choice (and provider) of the model on this machine."""
FILE_CHOICE = "gguf-"
"""The start of the choice of a model file found on this machine: "gguf-0", "gguf-1", …"""
MOST_OFFERED = 6
"""Found model files offered on the screen at most (the smallest: most likely to fit)."""


@dataclass(frozen=True, slots=True)
class EngineOffer:
    """The small model the engine extra installed: its name and file size."""

    name: str
    size: int


def installed_offer() -> EngineOffer | None:
    """The offer when the engine and its small model are installed (None otherwise)."""
    from ctxchat.engine.files import BUNDLED_DESCRIPTION, bundled_model, engine_installed

    model = bundled_model() if engine_installed() else None
    if model is None:
        return None
    return EngineOffer(BUNDLED_DESCRIPTION, model.stat().st_size)


def _megabytes(size: int) -> str:
    if size >= 1024**3:
        return f"{size / 1024**3:.1f} GB"
    return f"{size / 1024**2:.0f} MB"


def offered_files(found: Sequence[FoundModel], most: int = MOST_OFFERED) -> list[FoundModel]:
    """The found files a screen offers (`most` of them): those that fit first, smallest
    first."""
    return sorted(found, key=lambda model: (not model.fits, model.size))[:most]


def file_label(model: FoundModel) -> Text:
    """A found file as a choice: its name, size and the tool it came from."""
    label = Text()
    label.append(model.name, style="bold")
    label.append(f"  ({_megabytes(model.size)}, {model.tool})", style="dim")
    if not model.fits:
        label.append("  more than the memory free", style="italic")
    return label


def file_hint(model: FoundModel, config_path: str) -> str:
    """What choosing a found file does."""
    where = config_path or "the config file"
    fits = (
        ""
        if model.fits
        else " It needs more memory than is free now: it is refused until there is room."
    )
    return (
        f"{model.path} runs here, in ctxchat's own engine, loaded when the conversation "
        f"starts: no server, key or network. {where} gets engine = its path.{fits}"
    )


def engine_label(offer: EngineOffer) -> Text:
    """The choice: what it is and what it needs (nothing)."""
    label = Text()
    label.append("A model on this machine", style="bold")
    label.append(f"  ({offer.name}, {_megabytes(offer.size)}, no key)", style="dim")
    return label


def engine_hint(offer: EngineOffer, config_path: str) -> str:
    """What the model is for, and how to use a bigger one."""
    where = config_path or "the config file"
    return (
        f"{offer.name} runs here, in ctxchat's own engine: no server, key or network. It is "
        "for trying ctxchat and short tasks, not for knowledge. For a bigger model, pick a "
        f".gguf file in F4 or set engine in [profiles.local] of {where}."
    )
