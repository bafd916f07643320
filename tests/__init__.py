"""ctxchat's tests: packages, so that pytest and mypy give every module a unique name."""
