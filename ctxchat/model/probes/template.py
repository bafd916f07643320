"""Calibrating a server's chat template: the prompt tokens of one short request, beside the
tokenizer's counts of its messages, give the template's cost per message and whether it
drops system messages. A server that renders its template (llama.cpp) counts the rendered
prompt without running the model; others answer one non-streamed request with its usage."""

from __future__ import annotations

from ctxchat.core.server_count import TemplateCost
from ctxchat.model.probes.base import SideRequests
from ctxchat.model.probes.tokenizers import LLAMA_CPP, TokenizerEndpoint
from ctxchat.model.rendering import RenderedPrompt, render_messages

# Long enough that a dropped system message cannot hide inside the template's overhead.
CALIBRATION_SYSTEM = (
    "You are a careful assistant. Answer briefly and plainly, in the language of the "
    "question, without lists, headings or code unless they are asked for, and say so "
    "when you do not know."
)
CALIBRATION_USER = "Say OK."


async def calibrate_template(
    ask: SideRequests, model: str, tokenizer: TokenizerEndpoint
) -> TemplateCost | None:
    """The template's cost, or None when the server would not say (no usage, an error)."""
    counts = []
    for text in ("", CALIBRATION_SYSTEM, CALIBRATION_USER):
        answer = await ask.post(ask.root_url + tokenizer.path, tokenizer.payload(text, model))
        count = tokenizer.count_of(answer)
        if count is None:
            return None
        counts.append(count)
    base, system, user = counts  # `base`: what the tokenizer adds to any text (BOS)
    messages = [
        {"role": "system", "content": CALIBRATION_SYSTEM},
        {"role": "user", "content": CALIBRATION_USER},
    ]
    prompt = await _rendered_tokens(ask, model, messages) if tokenizer is LLAMA_CPP else None
    if prompt is None:
        prompt = await _usage_tokens(ask, model, messages)
    if prompt is None:
        return None
    return TemplateCost.calibrate(
        prompt_tokens=prompt, system_tokens=system - base, other_tokens=[user - base]
    )


async def _rendered_tokens(
    ask: SideRequests, model: str, messages: list[dict[str, str]]
) -> int | None:
    """The tokens of the prompt the server renders for `messages` (None: it does not)."""
    rendering = await render_messages(ask, messages, model)
    return rendering.tokens if isinstance(rendering, RenderedPrompt) else None


async def _usage_tokens(
    ask: SideRequests, model: str, messages: list[dict[str, str]]
) -> int | None:
    """`usage.prompt_tokens` of one request for `messages` (None: the server did not say)."""
    body = {
        "model": model,
        "messages": messages,
        "max_tokens": 1,
        "temperature": 0,
        "stream": False,
    }
    answer = await ask.post(f"{ask.base_url}/chat/completions", body, timeout=ask.reading_timeout)
    usage = answer.data.get("usage") if answer.ok and isinstance(answer.data, dict) else None
    prompt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    if not isinstance(prompt, int) or isinstance(prompt, bool) or prompt <= 0:
        return None
    return prompt
