"""Where the context window comes from: the config, the server, the known-models table, a default."""

from __future__ import annotations

from dataclasses import dataclass

from ctxchat.model.known_models import DEFAULT_CONTEXT_WINDOW, known_context_window


@dataclass(frozen=True, slots=True)
class WindowInfo:
    """A context window and its source: `server`, `probed`, `learned from an error`,
    `config`, `table` or `default` (see `ctxchat.model.probes.base.WINDOW_SOURCES`)."""

    context_window: int
    source: str
    warnings: tuple[str, ...] = ()

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
