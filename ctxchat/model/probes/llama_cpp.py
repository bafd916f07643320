"""llama.cpp's server: `/props` reports the context size it runs with."""

from __future__ import annotations

from ctxchat.model.probes.base import Context, Detection, ServerProbe, SideRequests, int_field


class LlamaCppProbe(ServerProbe):
    async def detect(self, ask: SideRequests, context: Context) -> Detection | None:
        props = (await ask.get(f"{ask.root_url}/props")).data
        # Newer llama.cpp nests n_ctx under default_generation_settings, older puts it on top.
        window = int_field(props, "default_generation_settings", "n_ctx") or int_field(
            props, "n_ctx"
        )
        return None if window is None else Detection("llama.cpp", window)
