"""Ollama: `/api/show` gives num_ctx when it was set, and the model's trained length."""

from __future__ import annotations

import re

from ctxchat.model.probes.base import Context, Detection, ServerProbe, SideRequests

# What Ollama runs a model with when nobody set num_ctx; its API does not say so, and it
# silently drops the start of longer prompts.
OLLAMA_DEFAULT_NUM_CTX = 4096
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.MULTILINE)


class OllamaProbe(ServerProbe):
    async def detect(self, ask: SideRequests, context: Context) -> Detection | None:
        show = (await ask.post(f"{ask.root_url}/api/show", {"model": context.model})).data
        if not isinstance(show, dict) or not ("model_info" in show or "parameters" in show):
            return None
        parameters = show.get("parameters")
        match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
        if match:
            return Detection("ollama", int(match.group(1)))
        info = show.get("model_info")
        trained = None
        if isinstance(info, dict):
            trained = next(
                (
                    v
                    for k, v in info.items()
                    if k.endswith(".context_length") and isinstance(v, int)
                ),
                None,
            )
        supports = f" although the model supports {trained}" if trained else ""
        return Detection(
            "ollama",
            fallback=OLLAMA_DEFAULT_NUM_CTX,
            table_misleads=True,
            warnings=(
                "Ollama runs this model with its default num_ctx (usually "
                f"{OLLAMA_DEFAULT_NUM_CTX} tokens){supports} and silently drops the start of "
                "longer prompts; set num_ctx in a Modelfile or OLLAMA_CONTEXT_LENGTH on the "
                "server, and set the context window to match.",
            ),
        )
