"""Talking to OpenAI-compatible model servers."""
