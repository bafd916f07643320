"""Helpers for tests, demos and benchmarks: a local OpenAI-compatible test server."""
