"""Chatting: one conversation's session tying the core, the store and the model client together."""
