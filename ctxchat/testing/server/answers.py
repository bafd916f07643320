"""A complete HTTP answer of the scripted server: status, body bytes, content type, headers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Answer:
    """One response to write in a single piece (not a stream)."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, payload: object, headers: Mapping[str, str] | None = None) -> Answer:
        return cls(status, json.dumps(payload).encode(), headers=dict(headers or {}))

    @classmethod
    def error(cls, status: int, message: str, **fields: Any) -> Answer:
        """OpenAI's error shape: `{"error": {"message": ..., **fields}}`."""
        return cls.json(status, {"error": {"message": message, **fields}})
