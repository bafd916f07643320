"""The terminal user interface (Textual) around the context core."""
