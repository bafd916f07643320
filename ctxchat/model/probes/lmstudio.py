"""LM Studio: `/api/v0/models/ID` reports the loaded and the maximum context length."""

from __future__ import annotations

from urllib.parse import quote

from ctxchat.model.probes.base import Context, Detection, ServerProbe, SideRequests, int_field


class LMStudioProbe(ServerProbe):
    async def detect(self, ask: SideRequests, context: Context) -> Detection | None:
        quoted = quote(context.model, safe="")
        data = (await ask.get(f"{ask.root_url}/api/v0/models/{quoted}")).data
        if not isinstance(data, dict) or not (
            "max_context_length" in data or "loaded_context_length" in data
        ):
            return None
        loaded = int_field(data, "loaded_context_length")
        maximum = int_field(data, "max_context_length")
        warnings: tuple[str, ...] = ()
        if loaded is None and maximum is not None:
            warnings = (
                f"LM Studio has not loaded '{context.model}' yet and may load it with less than "
                f"its maximum of {maximum} tokens; check the loaded context length.",
            )
        return Detection("lmstudio", loaded or maximum, warnings=warnings)
