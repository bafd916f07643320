"""First-run discovery: which model servers answer (on loopback, or at a typed URL), and
what they serve."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx2  # the HTTP library openai itself uses

from ctxchat.model.probes.hosted import LOOPBACK

__all__ = [
    "DEFAULT_CANDIDATES",
    "FoundServer",
    "UrlAnswer",
    "probe_local_servers",
    "probe_url",
    "url_problem",
]

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
    (status, body), kind, ollama = await _ask(client, root, f"{root}/v1", timeout)
    needs_key = status in (401, 403)
    models = model_ids(body) if status == 200 else ()
    if kind == "ollama" and not models:
        models = _ollama_names(ollama)
    if kind is None:
        if status != 200 and not needs_key:
            return None  # nothing, or something that is not a model server
        # A /v1/models answer without a signature: llama-cpp-python, vLLM or similar.
        kind = "openai-compatible" if guessed_kind == "llama.cpp" else guessed_kind
    return FoundServer(kind=kind, base_url=f"{root}/v1", models=models, needs_key=needs_key)


async def _ask(
    client: httpx2.AsyncClient,
    root: str,
    base_url: str,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> tuple[tuple[int, Any], str | None, Any]:
    """The model list's (status, body), the kind its own endpoint shows (None: no
    signature answered) and Ollama's tag list, all asked at once."""
    listing, *signatures = await asyncio.gather(
        _get(client, f"{base_url}/models", timeout, headers),
        *(_get(client, root + path, timeout, headers) for _, path in _SIGNATURES),
    )
    kind = next(
        (
            name
            for (name, _), (status, _) in zip(_SIGNATURES, signatures, strict=True)
            if status == 200
        ),
        None,
    )
    return listing, kind, signatures[0][1]


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a server's base URL, in one sentence; None when it can."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018  (reading it checks the port: ValueError when out of range)
    except ValueError:
        return "That is not a URL: e.g. http://127.0.0.1:8080/v1."
    if any(char.isspace() for char in url.strip()):
        return "A URL has no spaces."
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "The base URL starts with http:// or https://, e.g. http://127.0.0.1:8080/v1."
    return None


UrlOutcome = Literal["found", "nothing", "not_openai", "needs_key", "bad_key"]


@dataclass(frozen=True)
class UrlAnswer:
    """What a base URL typed by the user answered.

    `outcome`: "found" (an OpenAI-compatible model list; `server` says what it is),
    "nothing" (no answer at all), "not_openai" (an answer, but no OpenAI model list there),
    "needs_key" (it refused without a key) or "bad_key" (it refused the key given).
    """

    outcome: UrlOutcome
    server: FoundServer | None = None


async def probe_url(base_url: str, api_key: str | None = None, timeout: float = 3.0) -> UrlAnswer:
    """Ask a typed base URL what it is, as the servers found at first run are asked: its
    model list (with `api_key`, when given) and each kind's own endpoint. Raises ValueError
    for what is not an http(s) URL with a host (see `url_problem`)."""
    base_url = base_url.strip().rstrip("/")
    problem = url_problem(base_url)
    if problem is not None:
        raise ValueError(problem)
    root = base_url.removesuffix("/v1")
    host = urlsplit(base_url).hostname or ""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else None
    # A proxy from the environment never sees loopback traffic; a hosted server may need it.
    local = host in LOOPBACK
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(timeout), trust_env=not local) as client:
        (status, body), kind, ollama = await _ask(client, root, base_url, timeout, headers)
    if status in (401, 403):
        outcome: UrlOutcome = "bad_key" if api_key else "needs_key"
        return UrlAnswer(outcome, FoundServer(kind or "openai-compatible", base_url, (), True))
    data = body.get("data") if isinstance(body, dict) else None
    if status == 200 and isinstance(data, list):
        models = model_ids(body) or (_ollama_names(ollama) if kind == "ollama" else ())
        return UrlAnswer("found", FoundServer(kind or "openai-compatible", base_url, models))
    if status == 0 and kind is None:
        return UrlAnswer("nothing")
    return UrlAnswer("not_openai")


async def _get(
    client: httpx2.AsyncClient,
    url: str,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> tuple[int, Any]:
    """(status, JSON body) of a GET; (0, None) when nothing answered in time."""
    try:
        async with asyncio.timeout(timeout):
            response = await client.get(url, headers=headers)
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
