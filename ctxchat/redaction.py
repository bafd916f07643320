"""Keeping secrets out of text: masking a key for display and redacting it from any message.

One place for both the configuration and the model client, so every error, report and
export removes the same things.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

REDACTED = "[redacted]"

# `Bearer <token>` anywhere (headers echoed into error pages, debug dumps).
_BEARER = re.compile(r"(?i)\bbearer\s+[^\s\"',;]+")
# Key-shaped tokens: OpenAI (sk-, sk-proj-), OpenRouter (sk-or-), Anthropic (sk-ant-),
# Groq (gsk_), xAI (xai-), restricted keys (rk-).
_KEY_LIKE = re.compile(r"\b(?:sk|rk|gsk|xai)[-_][A-Za-z0-9_\-]{6,}")
# The credentials in a URL, `user:password@` or a lone `token@`: everything between "//" and
# the last "@" before the path (a password may hold a raw "@").
_URL_CREDENTIALS = re.compile(r"(?<=//)([^/?#\s]*)@")
# How a URL's password (or a lone user part, often a token) is shown.
MASKED = "***"
# Shorter "secrets" are not replaced: they would blank out ordinary words (and are
# placeholders such as "x" that local servers accept, not credentials).
MIN_SECRET_LENGTH = 4
# A masked key keeps its last characters only when it is long enough that they give
# nothing away.
_SHOW_TAIL_FROM = 16
_KNOWN_PREFIXES = ("sk-proj-", "sk-ant-", "sk-or-", "sk-", "rk-", "gsk_", "xai-")
_SENSITIVE_HEADER_WORDS = ("authorization", "key", "token", "secret", "cookie", "password")


def is_sensitive_header(name: str) -> bool:
    """Whether a header's value is treated as a secret (masked, redacted)."""
    lowered = name.lower()
    return any(word in lowered for word in _SENSITIVE_HEADER_WORDS)


def header_secrets(headers: Mapping[str, str]) -> list[str]:
    """The secret values among `headers`: those of auth-like headers, and the credential
    alone after a scheme (`Bearer <token>`), since servers echo that part."""
    found: list[str] = []
    for name, value in headers.items():
        if is_sensitive_header(name) and value:
            found.append(value)
            scheme, _, credential = value.partition(" ")
            if credential.strip() and scheme.isalpha():
                found.append(credential.strip())
    return found


def masked_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """`headers` as they may be shown: the values of auth-like ones masked."""
    return {
        name: mask_secret(value) if is_sensitive_header(name) else value
        for name, value in headers.items()
    }


def mask_secret(value: str) -> str:
    """A key as it may be shown: `sk-…abcd` for a long key, `****` for anything short."""
    if len(value) < _SHOW_TAIL_FROM:
        return "****"
    prefix = next((p for p in _KNOWN_PREFIXES if value.startswith(p)), "")
    return f"{prefix}…{value[-4:]}"


def _masked_credentials(found: re.Match[str]) -> str:
    user, colon, _ = found.group(1).partition(":")
    return f"{user}:{MASKED}@" if colon else f"{MASKED}@"


def shown_url(url: str) -> str:
    """`url` as it may be shown (errors, notices, the status line, the inspector, exports):
    its password masked, `http://alice:***@host/v1`; a lone user part, often a token, too."""
    return _URL_CREDENTIALS.sub(_masked_credentials, url)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` without `Bearer ...` tokens, key-shaped strings, URL passwords (see `shown_url`)
    or the given secrets."""
    # Longest first, so a secret that contains another is removed whole.
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        if len(secret) >= MIN_SECRET_LENGTH:
            text = text.replace(secret, REDACTED)
    text = _BEARER.sub(f"Bearer {REDACTED}", text)
    text = _KEY_LIKE.sub(REDACTED, text)
    return shown_url(text)
