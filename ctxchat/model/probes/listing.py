"""The OpenAI model list: vLLM's `max_model_len`, OpenRouter's `context_length`, and whether
the server offers the model at all."""

from __future__ import annotations

from typing import Any

from ctxchat.model.discovery import model_ids
from ctxchat.model.probes.base import Context, Detection, ServerProbe, SideRequests, int_field


async def listed_entry(
    ask: SideRequests, model: str
) -> tuple[tuple[str, ...], dict[str, Any] | None]:
    """The ids the server lists and the entry of `model` (None when it is not listed)."""
    listing = (await ask.get(f"{ask.base_url}/models")).data
    entries = listing.get("data") if isinstance(listing, dict) else None
    entries = entries if isinstance(entries, list) else []
    entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == model), None)
    return model_ids(listing), entry


class VLLMProbe(ServerProbe):
    local_only = False

    async def detect(self, ask: SideRequests, context: Context) -> Detection | None:
        _ids, entry = await listed_entry(ask, context.model)
        window = int_field(entry, "max_model_len")
        return None if window is None else Detection("vllm", window)


class ListedWindowProbe(ServerProbe):
    """A window listed per model (OpenRouter), which does not tell the server kind."""

    local_only = False

    async def detect(self, ask: SideRequests, context: Context) -> Detection | None:
        _ids, entry = await listed_entry(ask, context.model)
        window = int_field(entry, "context_length")
        return None if window is None else Detection(None, window)


async def listing_warnings(ask: SideRequests, model: str) -> tuple[str, ...]:
    """A warning when the server lists models but not this one."""
    ids, entry = await listed_entry(ask, model)
    if ids and entry is None:
        shown = ", ".join(ids[:12])
        return (f"The server does not list the model '{model}'; it offers: {shown}.",)
    return ()
