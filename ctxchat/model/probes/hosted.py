"""Hosted APIs by host name: no local server endpoints to probe there."""

from __future__ import annotations

# Hosted APIs: no llama.cpp/Ollama/LM Studio endpoints to probe there, and no reason to send
# them requests they will only answer with 404.
HOSTED = {
    "api.openai.com": "openai",
    "openrouter.ai": "openrouter",
    "api.groq.com": "groq",
    "api.mistral.ai": "mistral",
    "api.deepseek.com": "deepseek",
    "api.together.xyz": "together",
    "api.fireworks.ai": "fireworks",
    "generativelanguage.googleapis.com": "gemini",
}
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0"}
