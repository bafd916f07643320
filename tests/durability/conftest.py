"""Fixtures for the durability tests: the chat layer's store, scripted server and session."""

from tests.chat.conftest import backend, server, session, store

__all__ = ["backend", "server", "session", "store"]
