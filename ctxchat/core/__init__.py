"""The context engine: pure decisions about what the model sees (no UI, network or database)."""
