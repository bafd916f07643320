"""The placeholder that stands for the message not typed yet, where the next request is shown
before there is one: a request ends with a user's message, so the preview does too."""

NEXT_MESSAGE = "⟨your next message⟩"
"""Planned in place of the message while the composer is empty: the rendering then ends as
a real request does (the template's start of the reply), never mid-turn. Recall ignores it."""
