"""One conversation's session: the turn, summaries, extraction."""
