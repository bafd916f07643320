"""Semantic recall with the local MiniLM encoder."""
