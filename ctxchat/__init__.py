"""ctxchat: a terminal chat that shows exactly what the model sees."""

__version__ = "0.1.0"
