"""Calibrating a server's chat template: one short non-streamed request whose reported
`usage.prompt_tokens`, beside the tokenizer's counts of its messages, gives the template's
cost per message and whether it drops system messages."""

from __future__ import annotations

from ctxchat.core.server_count import TemplateCost
from ctxchat.model.probes.base import SideRequests
from ctxchat.model.probes.tokenizers import TokenizerEndpoint

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
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": CALIBRATION_SYSTEM},
            {"role": "user", "content": CALIBRATION_USER},
        ],
        "max_tokens": 1,
        "temperature": 0,
        "stream": False,
    }
    answer = await ask.post(f"{ask.base_url}/chat/completions", body, timeout=ask.reading_timeout)
    usage = answer.data.get("usage") if answer.ok and isinstance(answer.data, dict) else None
    prompt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
    if not isinstance(prompt, int) or isinstance(prompt, bool) or prompt <= 0:
        return None
    return TemplateCost.calibrate(
        prompt_tokens=prompt, system_tokens=system - base, other_tokens=[user - base]
    )
