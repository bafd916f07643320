"""The context engine (ctxchat.core), with exact numbers and invariants."""
