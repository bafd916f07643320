"""Configuration errors: each says where (file, line, key) and what was expected, without secrets."""

from __future__ import annotations

from pathlib import Path


class ConfigError(Exception):
    """A config file that cannot be used, as one line: `file:line: key: what was expected`."""

    def __init__(
        self,
        problem: str,
        *,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
    ) -> None:
        self.problem = problem
        self.path = path
        self.line = line
        self.column = column
        self.key = key
        super().__init__(self._text())

    def _text(self) -> str:
        where = str(self.path) if self.path is not None else "config"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [where, self.key, self.problem]
        return ": ".join(part for part in parts if part)

    def __str__(self) -> str:
        return self._text()


class MissingApiKey(Exception):
    """A profile takes its key from an environment variable that is not set (the value is never shown)."""

    def __init__(self, profile: str, variable: str) -> None:
        self.profile = profile
        self.variable = variable
        super().__init__(
            f'profile "{profile}" takes its API key from ${variable}, which is not set; '
            f"export {variable}=… or change api_key_env in the config file"
        )


class UnusableApiKey(MissingApiKey):
    """A key an HTTP header cannot carry: a letter outside ASCII (a Cyrillic "с" pasted for
    a Latin "c", a typographic quote) or a control character. The value is never shown."""

    def __init__(self, profile: str, source: str) -> None:
        self.profile = profile
        self.variable = source
        Exception.__init__(
            self,
            f'profile "{profile}": the API key from {source} has a character a request '
            "cannot carry (only ASCII letters, digits and punctuation can be sent; look for a "
            "non-Latin letter, a typographic quote or a line break pasted with it)",
        )


class UnknownProfile(LookupError):
    """A profile name that is not configured, or no profile at all (first run)."""

    def __init__(self, name: str | None, available: list[str]) -> None:
        self.name = name
        self.available = available
        if not available:
            message = (
                "no model server is configured: run `ctxchat config init`, or set "
                "OPENAI_BASE_URL (and OPENAI_API_KEY if the server needs a key)"
            )
        else:
            listed = ", ".join(f'"{n}"' for n in available)
            message = f'no profile named "{name}"; the configured profiles are {listed}'
        super().__init__(message)


class UnknownPreset(LookupError):
    """A preset name that is not configured."""

    def __init__(self, name: str, available: list[str]) -> None:
        self.name = name
        self.available = available
        if available:
            listed = ", ".join(f'"{n}"' for n in available)
            message = f'no preset named "{name}"; the configured presets are {listed}'
        else:
            message = f'no preset named "{name}": no presets are configured ([presets.NAME])'
        super().__init__(message)
