"""First-run setup's offer of a model on this machine (ctxchat's own engine): what it is,
in words, and whether it is there to offer."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

ENGINE_CHOICE = "engine"
"""The setup choice (and provider) of the model on this machine."""


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
    return f"{size / 1024**2:.0f} MB"


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
        "for trying ctxchat and short tasks, not for knowledge. For a bigger model, set "
        f'engine = "/path/to/model.gguf" in [profiles.local] of {where}.'
    )
