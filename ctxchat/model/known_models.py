"""Context windows of well-known models, for servers that do not report theirs."""

from __future__ import annotations

# The same normalising as token counting's: one place decides what a model's name is.
from ctxchat.core.tokens import bare_model_name as normalize_model_name

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "KNOWN_CONTEXT_WINDOWS",
    "known_context_window",
    "normalize_model_name",
]

DEFAULT_CONTEXT_WINDOW = 4_096
"""The window assumed when neither the config, the server nor the table knows one: small,
since planning for more than the server holds makes it drop the start of the prompt."""

# Prefix (lowercase) -> context window in tokens. The longest matching prefix wins, so
# specific entries ("gpt-4-turbo") override family ones ("gpt-4"). Figures are the models'
# documented windows; a local server may be configured for less.
KNOWN_CONTEXT_WINDOWS: dict[str, int] = {
    # OpenAI
    "gpt-5": 400_000,
    "gpt-5-chat": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.5": 128_000,
    "gpt-4o": 128_000,
    "chatgpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4-1106": 128_000,
    "gpt-4-0125": 128_000,
    "gpt-4-vision": 128_000,
    "gpt-4-32k": 32_768,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "gpt-3.5-turbo-instruct": 4_096,
    "gpt-oss": 131_072,
    "o1": 200_000,
    "o1-mini": 128_000,
    "o1-preview": 128_000,
    "o3": 200_000,
    "o3-mini": 200_000,
    "o4-mini": 200_000,
    # Meta Llama (Ollama tags and Hugging Face names)
    "llama2": 4_096,
    "llama-2": 4_096,
    "llama3": 8_192,
    "llama-3": 8_192,
    "meta-llama-3": 8_192,
    "llama3.1": 131_072,
    "llama-3.1": 131_072,
    "meta-llama-3.1": 131_072,
    "llama3.2": 131_072,
    "llama-3.2": 131_072,
    "llama3.3": 131_072,
    "llama-3.3": 131_072,
    # Qwen
    "qwen2": 32_768,
    "qwen2.5": 32_768,
    "qwen2.5-coder": 32_768,
    "qwen3": 40_960,
    "qwq": 40_960,
    # Mistral
    "mistral": 32_768,
    "mistral-nemo": 131_072,
    "mistral-large": 131_072,
    "mistral-small": 32_768,
    "mixtral": 32_768,
    "codestral": 32_768,
    # Google Gemma
    "gemma": 8_192,
    "gemma2": 8_192,
    "gemma-2": 8_192,
    "gemma3": 131_072,
    "gemma-3": 131_072,
    "gemma3n": 32_768,
    "gemma3:270m": 32_768,
    "gemma3:1b": 32_768,
    "gemma-3-270m": 32_768,
    "gemma-3-1b": 32_768,
    # Microsoft Phi
    "phi3": 4_096,
    "phi-3": 4_096,
    "phi-3-mini-128k": 131_072,
    "phi-3-medium-128k": 131_072,
    "phi3:medium-128k": 131_072,
    "phi3.5": 131_072,
    "phi-3.5": 131_072,
    "phi4": 16_384,
    "phi-4": 16_384,
    # DeepSeek
    "deepseek-r1": 131_072,
    "deepseek-chat": 65_536,
    "deepseek-reasoner": 65_536,
    "deepseek-v3": 65_536,
    # Anthropic models, as offered by OpenAI-compatible routers such as OpenRouter
    "claude": 200_000,
}

_SORTED_PREFIXES = sorted(KNOWN_CONTEXT_WINDOWS, key=len, reverse=True)


def known_context_window(model: str) -> int | None:
    """The documented context window of `model` by longest prefix match, or None."""
    name = normalize_model_name(model)
    if not name:
        return None
    for prefix in _SORTED_PREFIXES:
        if name.startswith(prefix):
            return KNOWN_CONTEXT_WINDOWS[prefix]
    return None
