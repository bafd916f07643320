"""The backend for OpenAI-compatible servers: the only module that imports openai."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import ssl
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote, urlsplit

import anyio
import httpx2  # the HTTP library openai itself uses; reused for the non-OpenAI endpoints
import openai

from ctxchat.model.backend import ModelBackend, ServerInfo, StreamChunk, ThinkTagSplitter
from ctxchat.model.chunks import pieces_of
from ctxchat.model.discovery import model_ids
from ctxchat.model.errors import (
    ErrorKind,
    ProviderError,
    classify_status,
    connection_error,
    describe_finish,
    empty_reply_error,
    empty_text_error,
    error_in_reply,
    interrupted_error,
    parse_retry_after,
    rejects_stream_options,
    stalled_error,
    status_error,
    unreadable_reply_error,
    web_page_error,
)
from ctxchat.model.known_models import DEFAULT_CONTEXT_WINDOW, known_context_window
from ctxchat.model.request import ChatRequest, request_headers
from ctxchat.model.sse import event_data
from ctxchat.redaction import header_secrets

__all__ = ["DEFAULT_CONTEXT_WINDOW", "OpenAIBackend"]

# A 200 answer of this type is a web page (a captive portal, a proxy's login page), not a stream.
_WEB_PAGES = frozenset({"text/html", "application/xhtml+xml"})

# What Ollama and llama-cpp-python run a model with when nobody set a context size; neither
# says so through its API, and both silently cut longer prompts (Ollama) or fail (llama-cpp-python).
OLLAMA_DEFAULT_NUM_CTX = 4096
LLAMA_CPP_PYTHON_DEFAULT_N_CTX = 2048

# Hosted APIs: no llama.cpp/Ollama/LM Studio endpoints to probe there, and no reason to send
# them requests they will only answer with 404.
_HOSTED = {
    "api.openai.com": "openai",
    "openrouter.ai": "openrouter",
    "api.groq.com": "groq",
    "api.mistral.ai": "mistral",
    "api.deepseek.com": "deepseek",
    "api.together.xyz": "together",
    "api.fireworks.ai": "fireworks",
    "generativelanguage.googleapis.com": "gemini",
}
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0"}
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.MULTILINE)
_TOKENIZE_COUNT = "/extras/tokenize/count"  # llama-cpp-python
_TOKENIZE = "/tokenize"  # llama.cpp
_NO_KEY = "not-needed"  # local servers ignore the key, but the client insists on one
# Once the finish reason is in, wait only briefly for the usage chunk and the end of stream.
_AFTER_FINISH_TIMEOUT = 5.0
# After [DONE], how long the rest of the body is read so the connection can be used again.
_DRAIN_TIMEOUT = 0.1
# What a broken connection raises while the body is read (as openai itself maps them; a TLS
# connection that drops can surface as anyio's EndOfStream).
_TRANSPORT_ERRORS = (httpx2.RequestError, ssl.SSLError, anyio.EndOfStream)


@dataclass(frozen=True)
class _Probe:
    """The answer to one side request: whether the server answered, and the decoded JSON."""

    reached: bool
    data: Any = None


class OpenAIBackend(ModelBackend):
    """Talks to OpenAI, Ollama, LM Studio, vLLM, llama.cpp and anything else speaking the API.

    `chunk_timeout` is the longest silence allowed between two chunks of a reply;
    `first_chunk_timeout` the longest wait for the first one (a local model may read a long
    prompt for minutes before it answers). `max_retries` is the client's own retrying of
    connection errors, 429 and 5xx; 0 by default so the user sees failures at once.
    `headers` (a profile's) go with every request: replies, the model list, probes.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        chunk_timeout: float = 60.0,
        first_chunk_timeout: float = 300.0,
        connect_timeout: float = 5.0,
        request_timeout: float = 30.0,
        probe_timeout: float = 2.0,
        max_retries: int = 0,
        split_think_tags: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._root_url = _root_of(self.base_url)
        self._host = (urlsplit(self.base_url).hostname or "").lower()
        self._api_key = api_key or None
        self._headers = dict(headers or {})
        secrets = [api_key, *header_secrets(self._headers)]
        self._secrets: tuple[str, ...] = tuple(s for s in secrets if s)
        self._chunk_timeout = chunk_timeout
        self._first_chunk_timeout = first_chunk_timeout
        self._connect_timeout = connect_timeout
        self._request_timeout = request_timeout
        self._probe_timeout = probe_timeout
        self._split_think_tags = split_think_tags
        self._http = httpx2.AsyncClient(
            timeout=httpx2.Timeout(request_timeout, connect=connect_timeout)
        )
        self._client = openai.AsyncOpenAI(
            api_key=api_key or _NO_KEY,
            base_url=self.base_url,
            max_retries=max_retries,
            timeout=httpx2.Timeout(request_timeout, connect=connect_timeout),
            http_client=self._http,
            default_headers=self._headers,
        )
        # Cleared the first time the server refuses `stream_options`, for every later call.
        self._sends_usage_option = True
        self._learned_windows: dict[str, int] = {}
        self._described_windows: dict[str, int] = {}
        self._tokenizer: str | None = None
        self._tokenizer_known = False
        self._tokenizer_lock = asyncio.Lock()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.close()
        await self._http.aclose()

    @property
    def sends_usage_option(self) -> bool:
        return self._sends_usage_option

    # -- replies -------------------------------------------------------------------------------

    async def stream_request(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        body = dict(request.body)
        sent: list[Mapping[str, str]] = list(body.get("messages") or [])
        model = str(body.get("model") or "")
        async with contextlib.AsyncExitStack() as cleanup:
            # Closed on errors, on early exit and on cancellation: frees the connection.
            response = await self._open_stream(cleanup, body)
            content_type = response.headers.get("content-type", "").split(";")[0].strip()
            if content_type in _WEB_PAGES:
                raise web_page_error(content_type)
            chunks = await cleanup.enter_async_context(aclosing(_chunks_of(response)))
            pieces = self._read_stream(chunks, sent, model)
            async with aclosing(pieces):
                async for piece in pieces:
                    yield piece

    async def _read_stream(
        self, chunks: AsyncIterator[Any], sent: Sequence[Mapping[str, str]], model: str
    ) -> AsyncGenerator[StreamChunk, None]:
        """Our chunks from the server's, with the timeouts and failures of a reply."""
        splitter = ThinkTagSplitter() if self._split_think_tags else None
        text: list[str] = []
        received = False
        produced = False
        finish: str | None = None
        while True:
            limit = self._chunk_timeout if received else self._first_chunk_timeout
            if finish is not None:
                limit = min(limit, _AFTER_FINISH_TIMEOUT)
            try:
                async with asyncio.timeout(limit):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                break
            except TimeoutError:
                if finish is not None:
                    break  # the reply is whole; only the usage chunk or [DONE] is late
                raise stalled_error(limit, "".join(text), started=received) from None
            except openai.APIConnectionError as exc:
                if finish is not None:
                    break  # the reply is whole; only the usage chunk or [DONE] was lost
                raise await self._stream_failure(exc, model, "".join(text)) from None
            except openai.APIError as exc:
                raise await self._stream_failure(exc, model, "".join(text)) from None
            except ValueError as exc:  # a data line that is not JSON
                raise unreadable_reply_error(
                    str(exc), partial_text="".join(text), secrets=self._secrets
                ) from None
            received = True
            for piece in pieces_of(chunk, splitter):
                text.append(piece.text)
                produced = produced or bool(piece.text or piece.reasoning)
                finish = piece.finish_reason or finish
                yield piece
        if splitter is not None:
            rest, thought = splitter.flush()
            if rest or thought:
                text.append(rest)
                produced = True
                yield StreamChunk(text=rest, reasoning=thought)
        if finish is None:
            if not produced:
                raise empty_reply_error(likely_overflow=self._likely_overflow(sent, model))
            # A clean end without a finish reason: the body was cut short.
            raise interrupted_error("".join(text), detail="The stream ended early.")
        if not produced and describe_finish(finish) is None:
            # Finished normally with nothing in it: a failure to retry, not a blank reply.
            raise empty_text_error(finish)

    async def _open_stream(
        self, cleanup: contextlib.AsyncExitStack, body: dict[str, Any]
    ) -> openai.AsyncAPIResponse[Any]:
        """Send `body` as it is; the response's body (the stream) is left to read.

        The body is read raw rather than through `openai.AsyncStream`, which builds a
        pydantic model of every chunk: about 0.1 ms a chunk, as much as the rest of the app
        spends on it, for the four fields a reply needs.
        """
        # The body's fields are passed as they are: the client sends them and nothing else.
        create: Any = self._client.chat.completions.with_streaming_response.create
        model = str(body.get("model") or "")
        while True:
            try:
                async with asyncio.timeout(self._first_chunk_timeout):
                    response: openai.AsyncAPIResponse[Any] = await cleanup.enter_async_context(
                        create(
                            **body,
                            # The read timeout is ours: per chunk, in _read_stream.
                            timeout=httpx2.Timeout(None, connect=self._connect_timeout),
                        )
                    )
                    return response
            except TimeoutError:
                raise stalled_error(self._first_chunk_timeout, "", started=False) from None
            except openai.APIStatusError as exc:
                if "stream_options" in body and rejects_stream_options(exc.status_code, exc.body):
                    self._sends_usage_option = False
                    body = {k: v for k, v in body.items() if k != "stream_options"}
                    continue
                raise await self._status_failure(exc, model, "") from None
            except openai.APIConnectionError as exc:
                raise self._connection_failure(exc) from None
            except openai.APIError as exc:
                raise unreadable_reply_error(exc.message, secrets=self._secrets) from None

    async def _stream_failure(
        self, exc: openai.APIError, model: str, partial: str
    ) -> ProviderError:
        if isinstance(exc, openai.APIStatusError):
            return await self._status_failure(exc, model, partial)
        if isinstance(exc, openai.APIConnectionError):
            return interrupted_error(partial, detail=exc.message, secrets=self._secrets)
        # openai raises a bare APIError for an `error` object inside a 200 stream.
        error = error_in_reply(exc.body, partial_text=partial, secrets=self._secrets)
        self._learn_window(model, error)
        return error

    async def _status_failure(
        self, exc: openai.APIStatusError, model: str, partial: str, *, list_models: bool = True
    ) -> ProviderError:
        kind = classify_status(exc.status_code, exc.body)
        offered: list[str] = []
        if list_models and kind in (ErrorKind.FORBIDDEN, ErrorKind.UNKNOWN_MODEL):
            # The refused model itself is no alternative, even when the server lists it.
            offered = [m for m in await self._models_quietly() if m != model]
        error = status_error(
            exc.status_code,
            exc.body,
            model=model,
            base_url=self.base_url,
            retry_after=parse_retry_after(exc.response.headers),
            available_models=offered,
            partial_text=partial,
            secrets=self._secrets,
        )
        self._learn_window(model, error)
        return error

    def _connection_failure(self, exc: openai.APIConnectionError) -> ProviderError:
        timeout = self._connect_timeout if isinstance(exc, openai.APITimeoutError) else None
        cause = exc.__cause__
        detail = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
        return connection_error(
            self.base_url, timeout=timeout, detail=detail, secrets=self._secrets
        )

    def _learn_window(self, model: str, error: ProviderError) -> None:
        if error.context_window:
            self._learned_windows[model] = error.context_window

    def _likely_overflow(self, messages: Sequence[Mapping[str, str]], model: str) -> bool:
        """Whether an empty reply is probably LM Studio-style silence about an overflow."""
        window = self._learned_windows.get(model) or self._described_windows.get(model)
        if window is None:
            return False
        # About 4 characters per token; a rough estimate is enough to choose the wording.
        estimate = sum(len(m.get("content") or "") for m in messages) / 4 + 4 * len(messages)
        return estimate >= 0.8 * window

    # -- models --------------------------------------------------------------------------------

    async def list_models(self) -> list[str]:
        try:
            page = await self._client.models.list(timeout=self._request_timeout)
        except openai.APIStatusError as exc:
            raise await self._status_failure(exc, "", "", list_models=False) from None
        except openai.APIConnectionError as exc:
            raise self._connection_failure(exc) from None
        except openai.APIError as exc:
            raise unreadable_reply_error(exc.message, secrets=self._secrets) from None
        return [model.id for model in page.data]

    async def _models_quietly(self) -> list[str]:
        """The server's models for an error message; nothing if it cannot say quickly."""
        try:
            async with asyncio.timeout(self._probe_timeout):
                return await self.list_models()
        except (ProviderError, TimeoutError):
            return []

    # -- the server ------------------------------------------------------------------------------

    def _is_hosted(self) -> bool:
        return self._host in _HOSTED

    async def describe_server(self, model: str, configured_window: int | None) -> ServerInfo:
        local = not self._is_hosted()
        quoted = quote(model, safe="")
        props, show, lmstudio, listing, tokenizer = await asyncio.gather(
            self._probe("GET", f"{self._root_url}/props", enabled=local),
            self._probe("POST", f"{self._root_url}/api/show", {"model": model}, enabled=local),
            self._probe("GET", f"{self._root_url}/api/v0/models/{quoted}", enabled=local),
            self._probe("GET", f"{self.base_url}/models"),
            self._tokenizer_endpoint(),
        )
        info = _interpret(
            base_url=self.base_url,
            host=self._host,
            model=model,
            configured_window=configured_window,
            learned_window=self._learned_windows.get(model),
            props=props.data,
            show=show.data,
            lmstudio=lmstudio.data,
            listing=listing.data,
            tokenizer=tokenizer,
        )
        if info.context_window is not None:
            self._described_windows[model] = info.context_window
        return info

    async def count_tokens(self, text: str) -> int | None:
        endpoint = await self._tokenizer_endpoint()
        if endpoint == _TOKENIZE_COUNT:
            answer = await self._probe("POST", self._root_url + endpoint, {"input": text})
            count = answer.data.get("count") if isinstance(answer.data, dict) else None
            return count if isinstance(count, int) else None
        if endpoint == _TOKENIZE:
            answer = await self._probe("POST", self._root_url + endpoint, {"content": text})
            tokens = answer.data.get("tokens") if isinstance(answer.data, dict) else None
            return len(tokens) if isinstance(tokens, list) else None
        return None

    async def _tokenizer_endpoint(self) -> str | None:
        """Which tokenize endpoint the server has, found once and remembered."""
        if self._is_hosted():
            return None
        async with self._tokenizer_lock:
            if self._tokenizer_known:
                return self._tokenizer
            counted, tokenized = await asyncio.gather(
                self._probe("POST", self._root_url + _TOKENIZE_COUNT, {"input": "ping"}),
                self._probe("POST", self._root_url + _TOKENIZE, {"content": "ping"}),
            )
            if isinstance(counted.data, dict) and isinstance(counted.data.get("count"), int):
                self._tokenizer = _TOKENIZE_COUNT
            elif isinstance(tokenized.data, dict) and isinstance(
                tokenized.data.get("tokens"), list
            ):
                self._tokenizer = _TOKENIZE
            # Remember "none" only once the server answered: it may simply not be up yet.
            self._tokenizer_known = counted.reached or tokenized.reached
            return self._tokenizer

    async def _probe(
        self,
        method: str,
        url: str,
        payload: Mapping[str, Any] | None = None,
        *,
        enabled: bool = True,
    ) -> _Probe:
        """A short side request; any failure is just "no answer" (the server may not have it)."""
        if not enabled:
            return _Probe(reached=False)
        headers = request_headers(self._api_key, self._headers)
        try:
            response = await self._http.request(
                method, url, json=payload, headers=headers, timeout=self._probe_timeout
            )
        except httpx2.HTTPError:
            return _Probe(reached=False)
        if response.status_code != 200:
            return _Probe(reached=True)
        try:
            return _Probe(reached=True, data=response.json())
        except ValueError:
            return _Probe(reached=True)


def _root_of(base_url: str) -> str:
    """The server root, where llama.cpp, Ollama and LM Studio keep their own endpoints."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


async def _chunks_of(response: openai.AsyncAPIResponse[Any]) -> AsyncGenerator[Any, None]:
    """The decoded JSON of each chunk in a streamed reply, up to `[DONE]`.

    Raised as openai raises them: an `error` object in the stream as `openai.APIError`, a
    broken connection as `openai.APIConnectionError`, a data line that is not JSON as
    `ValueError`.
    """
    request = response.http_response.request
    events = event_data(response.iter_bytes())
    try:
        async for data in events:
            if data.startswith("[DONE]"):
                await _drain(events)
                return
            chunk = json.loads(data)
            if isinstance(chunk, dict) and chunk.get("error"):
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else None
                if not isinstance(message, str) or not message:
                    message = "An error occurred during streaming"
                raise openai.APIError(message, request, body=error)
            yield chunk
    except _TRANSPORT_ERRORS as exc:
        raise openai.APIConnectionError(
            message=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
            request=request,
        ) from exc


async def _drain(events: AsyncIterator[str]) -> None:
    """Read what is left of the body after [DONE], briefly, so the connection is reused."""
    with contextlib.suppress(TimeoutError, *_TRANSPORT_ERRORS):
        async with asyncio.timeout(_DRAIN_TIMEOUT):
            async for _ in events:
                pass


def _int_field(data: object, *path: str) -> int | None:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data if isinstance(data, int) and not isinstance(data, bool) and data > 0 else None


def _interpret(
    *,
    base_url: str,
    host: str,
    model: str,
    configured_window: int | None,
    learned_window: int | None,
    props: object,
    show: object,
    lmstudio: object,
    listing: object,
    tokenizer: str | None,
) -> ServerInfo:
    """Decide the server kind and context window from the probes' answers."""
    warnings: list[str] = []
    entries = listing.get("data") if isinstance(listing, dict) else None
    entries = entries if isinstance(entries, list) else []
    ids = model_ids(listing)
    entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == model), None)
    if ids and entry is None:
        shown = ", ".join(ids[:12])
        warnings.append(f"The server does not list the model '{model}'; it offers: {shown}.")

    kind: str | None = None
    window: int | None = None
    fallback = DEFAULT_CONTEXT_WINDOW
    props_window = _int_field(props, "default_generation_settings", "n_ctx") or _int_field(
        props, "n_ctx"
    )
    if props_window is not None:
        kind, window = "llama.cpp", props_window
    elif isinstance(lmstudio, dict) and (
        "max_context_length" in lmstudio or "loaded_context_length" in lmstudio
    ):
        kind = "lmstudio"
        loaded = _int_field(lmstudio, "loaded_context_length")
        maximum = _int_field(lmstudio, "max_context_length")
        window = loaded or maximum
        if loaded is None and maximum is not None:
            warnings.append(
                f"LM Studio has not loaded '{model}' yet and may load it with less than its "
                f"maximum of {maximum} tokens; check the loaded context length."
            )
    elif isinstance(show, dict) and ("model_info" in show or "parameters" in show):
        kind = "ollama"
        parameters = show.get("parameters")
        match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
        if match:
            window = int(match.group(1))
        else:
            fallback = OLLAMA_DEFAULT_NUM_CTX
            info = show.get("model_info")
            trained = None
            if isinstance(info, dict):
                trained = next(
                    (
                        v
                        for k, v in info.items()
                        if k.endswith(".context_length") and isinstance(v, int)
                    ),
                    None,
                )
            supports = f" although the model supports {trained}" if trained else ""
            warnings.append(
                "Ollama runs this model with its default num_ctx (usually "
                f"{OLLAMA_DEFAULT_NUM_CTX} tokens){supports} and silently drops the start of "
                "longer prompts; set num_ctx in a Modelfile or OLLAMA_CONTEXT_LENGTH on the "
                "server, and set the context window to match."
            )
    elif isinstance(entry, dict) and _int_field(entry, "max_model_len") is not None:
        kind, window = "vllm", _int_field(entry, "max_model_len")
    elif isinstance(entry, dict) and _int_field(entry, "context_length") is not None:
        window = _int_field(entry, "context_length")  # OpenRouter lists it per model
    if kind is None:
        if tokenizer == _TOKENIZE_COUNT:
            kind = "llama-cpp-python"
            fallback = LLAMA_CPP_PYTHON_DEFAULT_N_CTX
            if learned_window is None:
                warnings.append(
                    "llama-cpp-python does not report its context size (--n_ctx, "
                    f"{LLAMA_CPP_PYTHON_DEFAULT_N_CTX} unless set); set the context window "
                    "to match the server."
                )
        else:
            kind = _HOSTED.get(host, "openai-compatible")

    source = "server"
    if window is None and learned_window is not None:
        window = learned_window
    if window is None:
        # A local server's runtime window is its own setting, not the model's documented one;
        # for the servers known to differ, the table would only mislead.
        table = None if kind in ("ollama", "llama-cpp-python") else known_context_window(model)
        if table is not None:
            window, source = table, "table"
            if host in _LOOPBACK:
                warnings.append(
                    f"The server does not report its context size; {table} tokens is the "
                    "model's documented window, and the server may run it with less."
                )
        elif configured_window is not None:
            window, source = configured_window, "config"
        else:
            window, source = fallback, "default"
    return ServerInfo(
        kind=kind,
        base_url=base_url,
        model=model,
        context_window=window,
        window_source=source,
        tokenizer=tokenizer is not None,
        warnings=tuple(warnings),
    )
