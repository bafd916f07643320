"""Exit codes of `ctxchat` and the one error every command raises to stop with one line."""

from __future__ import annotations

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_PROVIDER", "EXIT_USAGE", "CliError"]

EXIT_OK = 0
EXIT_ERROR = 1  # the environment stopped us: config, database, missing key
EXIT_USAGE = 2  # the invocation was wrong: bad arguments, unknown id, message too long
EXIT_PROVIDER = 3  # the model server failed


class CliError(Exception):
    """A failure to report as one line on stderr with an exit code."""

    def __init__(self, message: str, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.code = code
