"""The conversation screen's parts that draw nothing: each owns its state and workers, hears
the screen's method calls and answers with messages (see ARCHITECTURE.md)."""
