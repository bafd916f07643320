"""First-run discovery: which local model servers answer on loopback, and what they serve."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx2  # the HTTP library openai itself uses

__all__ = ["DEFAULT_CANDIDATES", "FoundServer", "probe_local_servers"]

# (kind guessed from the port, port): the servers' default ports.
DEFAULT_CANDIDATES: tuple[tuple[str, int], ...] = (
    ("ollama", 11434),
    ("lmstudio", 1234),
    ("llama.cpp", 8080),
)

# An endpoint only that kind of server has, checked to tell servers apart whatever the port.
_SIGNATURES: tuple[tuple[str, str], ...] = (
    ("ollama", "/api/tags"),
    ("lmstudio", "/api/v0/models"),
    ("llama.cpp", "/props"),
)


@dataclass(frozen=True)
class FoundServer:
    """A model server that answered: its kind, OpenAI base URL and the models it offers."""

    kind: str
    base_url: str
    models: tuple[str, ...]
    needs_key: bool = False


async def probe_local_servers(
    timeout: float = 0.3,
    *,
    candidates: Sequence[tuple[str, int]] = DEFAULT_CANDIDATES,
    host: str = "127.0.0.1",
) -> list[FoundServer]:
    """Look for model servers on `host`, all probes at once, each bounded by `timeout` seconds.

    Returns the servers found, in the order of `candidates`. Nothing listening costs almost
    nothing (loopback refuses at once), so the whole look takes at most about `timeout`.
    """
    # trust_env=False: a proxy from the environment must never see loopback traffic.
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(timeout), trust_env=False) as client:
        found = await asyncio.gather(
            *(_probe_port(client, host, kind, port, timeout) for kind, port in candidates)
        )
    return [server for server in found if server is not None]


async def _probe_port(
    client: httpx2.AsyncClient, host: str, guessed_kind: str, port: int, timeout: float
) -> FoundServer | None:
    root = f"http://{host}:{port}"
    listing, *signatures = await asyncio.gather(
        _get(client, f"{root}/v1/models", timeout),
        *(_get(client, root + path, timeout) for _, path in _SIGNATURES),
    )
    kind = next(
        (
            name
            for (name, _), (status, _) in zip(_SIGNATURES, signatures, strict=True)
            if status == 200
        ),
        None,
    )
    status, body = listing
    needs_key = status in (401, 403)
    models = model_ids(body) if status == 200 else ()
    if kind == "ollama" and not models:
        models = _ollama_names(signatures[0][1])
    if kind is None:
        if status != 200 and not needs_key:
            return None  # nothing, or something that is not a model server
        # A /v1/models answer without a signature: llama-cpp-python, vLLM or similar.
        kind = "openai-compatible" if guessed_kind == "llama.cpp" else guessed_kind
    return FoundServer(kind=kind, base_url=f"{root}/v1", models=models, needs_key=needs_key)


async def _get(client: httpx2.AsyncClient, url: str, timeout: float) -> tuple[int, Any]:
    """(status, JSON body) of a GET; (0, None) when nothing answered in time."""
    try:
        async with asyncio.timeout(timeout):
            response = await client.get(url)
    except (httpx2.HTTPError, TimeoutError):
        return 0, None
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, None


def model_ids(body: Any) -> tuple[str, ...]:
    """The model ids of a `/v1/models` answer (entries without a string id are skipped)."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return ()
    return tuple(e["id"] for e in data if isinstance(e, dict) and isinstance(e.get("id"), str))


def _ollama_names(body: Any) -> tuple[str, ...]:
    data = body.get("models") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return ()
    return tuple(e["name"] for e in data if isinstance(e, dict) and isinstance(e.get("name"), str))
