"""The server probes in the order their answers are trusted, and deciding from them."""

from __future__ import annotations

import asyncio

from ctxchat.model.known_models import DEFAULT_CONTEXT_WINDOW, known_context_window
from ctxchat.model.probes.base import Context, Detection, ServerProbe, SideRequests
from ctxchat.model.probes.hosted import HOSTED, LOOPBACK
from ctxchat.model.probes.listing import ListedWindowProbe, VLLMProbe, listing_warnings
from ctxchat.model.probes.llama_cpp import LlamaCppProbe
from ctxchat.model.probes.llama_cpp_python import LlamaCppPythonProbe
from ctxchat.model.probes.lmstudio import LMStudioProbe
from ctxchat.model.probes.ollama import OllamaProbe

# First match wins: a server's own endpoint says more than the generic model list.
SERVER_PROBES: tuple[ServerProbe, ...] = (
    LlamaCppProbe(),
    LMStudioProbe(),
    OllamaProbe(),
    VLLMProbe(),
    ListedWindowProbe(),
    LlamaCppPythonProbe(),
)


async def _skipped() -> None:
    return None


async def detect(
    ask: SideRequests, context: Context, *, configured_window: int | None
) -> tuple[str, int, str, tuple[str, ...]]:
    """(kind, window, window source, warnings) from every probe that applies."""
    found, warnings = await asyncio.gather(
        asyncio.gather(
            *(
                probe.detect(ask, context) if ask.local or not probe.local_only else _skipped()
                for probe in SERVER_PROBES
            )
        ),
        listing_warnings(ask, context.model),
    )
    detection = next((d for d in found if d is not None), None) or Detection(None)
    kind = detection.kind or HOSTED.get(context.host, "openai-compatible")
    warnings += detection.warnings
    if detection.window is not None:
        return kind, detection.window, detection.source, warnings
    if context.learned_window is not None:
        return kind, context.learned_window, "learned from an error", warnings
    # A local server's runtime window is its own setting, not the model's documented one;
    # for the servers known to differ, the table would only mislead.
    table = None if detection.table_misleads else known_context_window(context.model)
    if table is not None:
        if context.host in LOOPBACK:
            warnings += (
                f"The server does not report its context size; {table} tokens is the "
                "model's documented window, and the server may run it with less.",
            )
        return kind, table, "table", warnings
    if configured_window is not None:
        return kind, configured_window, "config", warnings
    return kind, detection.fallback or DEFAULT_CONTEXT_WINDOW, "default", warnings
