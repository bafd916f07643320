"""Screens of the ctxchat terminal interface, one per module."""
