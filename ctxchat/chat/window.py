"""Where the context window comes from: the config, the server, the model file (a model in
ctxchat's engine), the known-models table, a default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxchat.model.known_models import DEFAULT_CONTEXT_WINDOW, known_context_window

if TYPE_CHECKING:
    from ctxchat.config.settings import ProviderProfile


@dataclass(frozen=True, slots=True)
class WindowInfo:
    """A context window and its source: `server`, `probed`, `learned from an error`,
    `config`, `model file`, `table` or `default` (see
    `ctxchat.model.probes.base.WINDOW_SOURCES`)."""

    context_window: int
    source: str
    warnings: tuple[str, ...] = ()

    @classmethod
    def for_profile(cls, profile: ProviderProfile, configured: int) -> WindowInfo:
        """The window known of `profile` before asking its server (`configured`: its
        setting, 0 for none): for a model in ctxchat's engine, the one the engine will serve
        it with, read from the file (not a guess while the engine starts)."""
        if configured <= 0 and profile.engine:
            read = model_file_window(profile.engine, profile.model)
            if read is not None:
                return read
        return cls.without_server(profile.model, configured)

    @classmethod
    def without_server(cls, model: str, configured: int) -> WindowInfo:
        """The window known before asking the server: configured, else the table, else a default."""
        if configured > 0:
            return cls(configured, "config")
        known = known_context_window(model)
        if known:
            return cls(known, "table")
        return cls(
            DEFAULT_CONTEXT_WINDOW,
            "default",
            (
                f"The context window of {model or 'this model'} is unknown; assuming "
                f"{DEFAULT_CONTEXT_WINDOW:,} tokens. Set context_window in the config to be sure.",
            ),
        )


def model_file_window(engine: str, model: str) -> WindowInfo | None:
    """The window ctxchat's engine will serve the model `engine` names with (see
    `engine.files.window_to_serve`), read from its file; None when the file does not say,
    or cannot be run (said when the engine is started)."""
    from ctxchat.engine.errors import EngineError
    from ctxchat.engine.files import check_gguf, free_memory, model_path, window_to_serve

    try:
        window, _ = window_to_serve(check_gguf(model_path(engine)), model, 0, free_memory())
    except EngineError:
        return None
    return WindowInfo(window, "model file") if window else None
