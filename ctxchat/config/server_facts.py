"""What probing a model server found for one model, kept in the app's state with a time stamp."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["FACTS_MAX_AGE", "ServerFacts", "read_facts"]

FACTS_MAX_AGE = timedelta(days=1)
"""How long facts stand in for asking the server again (the app asks on every start anyway)."""


@dataclass(frozen=True, slots=True)
class ServerFacts:
    """A server's context window for one model and where it came from, its tokenizer and kind.

    Cached per base URL and model so every command plans with the window the app found,
    without asking the server each time.
    """

    context_window: int
    """The window in tokens."""
    window_source: str
    """Where it came from: "server", "table", "config" or "default" (see `WINDOW_SOURCES`)."""
    tokenizer: str
    """What counts tokens exactly on the server ("" when it cannot)."""
    flavour: str
    """The kind of server: "llama.cpp", "ollama", "vllm", "openai", ..."""
    checked_at: datetime
    """When the server was asked (UTC)."""
    warnings: tuple[str, ...] = ()
    """What the user should know about the window (a default num_ctx, an unloaded model)."""
    tokenizer_name: str = ""
    """Whose tokenize endpoint counts: "llama.cpp", "llama-cpp-python", "vllm" ("" none)."""
    template_per_message: float | None = None
    """The chat template's cost per message, calibrated from the server's usage."""
    template_drops_system: bool = False
    """Whether the chat template leaves system messages out."""

    def fresh(self, now: datetime | None = None, max_age: timedelta = FACTS_MAX_AGE) -> bool:
        """Whether the facts are recent enough to plan with instead of asking again."""
        return (now or datetime.now(UTC)) - self.checked_at < max_age

    def to_toml(self) -> dict[str, object]:
        return {
            "context_window": self.context_window,
            "window_source": self.window_source,
            "tokenizer": self.tokenizer,
            "flavour": self.flavour,
            "checked_at": self.checked_at,
            "warnings": list(self.warnings),
            "tokenizer_name": self.tokenizer_name,
            **(
                {}
                if self.template_per_message is None
                else {
                    "template_per_message": self.template_per_message,
                    "template_drops_system": self.template_drops_system,
                }
            ),
        }


def read_facts(value: object, dropped: Callable[[str, object], None]) -> dict[str, ServerFacts]:
    """Facts by model from one server's table of the state file; bad entries are dropped."""
    if not isinstance(value, Mapping):
        dropped("server_facts", value)
        return {}
    found: dict[str, ServerFacts] = {}
    for model, data in value.items():
        facts = _facts(data)
        if facts is None:
            dropped(f"server_facts.{model}", data)
        else:
            found[str(model)] = facts
    return found


def _facts(data: object) -> ServerFacts | None:
    if not isinstance(data, Mapping):
        return None
    window = data.get("context_window")
    checked = data.get("checked_at")
    texts = [data.get(name) for name in ("window_source", "tokenizer", "flavour")]
    warnings = data.get("warnings", [])
    if (
        not isinstance(window, int)
        or isinstance(window, bool)
        or window <= 0
        or not isinstance(checked, datetime)
        or not all(isinstance(text, str) for text in texts)
        or not isinstance(warnings, list)
        or not all(isinstance(w, str) for w in warnings)
    ):
        return None
    if checked.tzinfo is None:
        checked = checked.replace(tzinfo=UTC)
    source, tokenizer, flavour = (str(text) for text in texts)
    name = data.get("tokenizer_name", "")
    per_message = data.get("template_per_message")
    drops = data.get("template_drops_system", False)
    if not isinstance(per_message, int | float) or isinstance(per_message, bool):
        per_message = None
    return ServerFacts(
        window,
        source,
        tokenizer,
        flavour,
        checked,
        tuple(warnings),
        tokenizer_name=name if isinstance(name, str) else "",
        template_per_message=None if per_message is None else float(per_message),
        template_drops_system=drops is True,
    )
