"""llama-cpp-python: known by its tokenize-count endpoint; its window is probed by overflow.

It reports no context size, but refuses a prompt longer than its window before running the
model, naming the window in the error. One over-long request finds it exactly.
"""

from __future__ import annotations

from ctxchat.model.errors import window_from_error
from ctxchat.model.known_models import known_context_window
from ctxchat.model.probes.base import Context, Detection, ServerProbe, SideRequests

# What llama-cpp-python runs a model with when --n_ctx is not given.
LLAMA_CPP_PYTHON_DEFAULT_N_CTX = 2048
# The probe must be longer than the window, or the server would read it all: longer than
# the model's documented window (a server rarely runs more), else than this.
PROBE_CEILING = 131_072


def probe_words(model: str) -> int:
    """How many words the overflow probe holds: each is at least one token."""
    return max(known_context_window(model) or 0, PROBE_CEILING) + 1


class LlamaCppPythonProbe(ServerProbe):
    async def detect(self, ask: SideRequests, context: Context) -> Detection | None:
        if context.tokenizer != "llama-cpp-python":
            return None
        if context.learned_window is not None:
            return Detection("llama-cpp-python", fallback=LLAMA_CPP_PYTHON_DEFAULT_N_CTX)
        body = {
            "model": context.model,
            "messages": [{"role": "user", "content": "hi " * probe_words(context.model)}],
            "max_tokens": 1,
            "stream": False,
        }
        answer = await ask.post(f"{ask.base_url}/chat/completions", body, timeout=ask.slow_timeout)
        error = answer.data.get("error", answer.data) if isinstance(answer.data, dict) else None
        window = window_from_error(error) if answer.status == 400 else None
        if window is not None:
            return Detection("llama-cpp-python", window, source="probed")
        why = (
            "timed out"
            if answer.timed_out
            else "got no answer"
            if not answer.reached
            else f"got an answer without it (HTTP {answer.status})"
        )
        return Detection(
            "llama-cpp-python",
            fallback=LLAMA_CPP_PYTHON_DEFAULT_N_CTX,
            table_misleads=True,
            warnings=(
                f"llama-cpp-python does not report its context size, and asking it {why} "
                f"(--n_ctx, {LLAMA_CPP_PYTHON_DEFAULT_N_CTX} unless set); set the context "
                "window to match the server.",
            ),
        )
