"""The backend for OpenAI-compatible servers: the only module that imports openai."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import anyio
import httpx2  # the HTTP library openai itself uses; reused for the non-OpenAI endpoints
import openai

from ctxchat.core.server_count import TemplateCost
from ctxchat.model.backend import (
    ModelBackend,
    ModelListing,
    ServerInfo,
    StreamChunk,
    ThinkTagSplitter,
)
from ctxchat.model.chunks import pieces_of
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
from ctxchat.model.known_models import DEFAULT_CONTEXT_WINDOW
from ctxchat.model.probes.base import Answer, Context, SideRequests
from ctxchat.model.probes.hosted import HOSTED
from ctxchat.model.probes.llama_cpp_python import LlamaCppPythonProbe
from ctxchat.model.probes.registry import detect
from ctxchat.model.probes.template import calibrate_template
from ctxchat.model.probes.tokenizers import LLAMA_CPP_PYTHON as LLAMA_CPP_PYTHON_TOKENIZER
from ctxchat.model.probes.tokenizers import TokenizerEndpoint, find_tokenizer
from ctxchat.model.rendering import HOSTED as HOSTED_RENDERING
from ctxchat.model.rendering import NotRendered, Rendering, render_messages
from ctxchat.model.request import ChatRequest, request_headers
from ctxchat.model.sse import event_data
from ctxchat.redaction import header_secrets

__all__ = ["DEFAULT_CONTEXT_WINDOW", "OpenAIBackend"]

# A 200 answer of this type is a web page (a captive portal, a proxy's login page), not a stream.
_WEB_PAGES = frozenset({"text/html", "application/xhtml+xml"})

_NO_KEY = "not-needed"  # local servers ignore the key, but the client insists on one
# Once the finish reason is in, wait only briefly for the usage chunk and the end of stream.
_AFTER_FINISH_TIMEOUT = 5.0
# After [DONE], how long the rest of the body is read so the connection can be used again.
_DRAIN_TIMEOUT = 0.1
# What a broken connection raises while the body is read (as openai itself maps them; a TLS
# connection that drops can surface as anyio's EndOfStream).
_TRANSPORT_ERRORS = (httpx2.RequestError, ssl.SSLError, anyio.EndOfStream)


class OpenAIBackend(ModelBackend):
    """Talks to OpenAI, Ollama, LM Studio, vLLM, llama.cpp and anything else speaking the API.

    `chunk_timeout` is the longest silence allowed between two chunks of a reply;
    `first_chunk_timeout` the longest wait for the first one (a local model may read a long
    prompt for minutes before it answers). `window_probe_timeout` bounds the one over-long
    request that makes llama-cpp-python name its window. `max_retries` is the client's own retrying of
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
        window_probe_timeout: float = 30.0,
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
        self._streams_open = 0
        self._no_stream: asyncio.Event | None = None
        self._asides_open = 0
        self._no_aside: asyncio.Event | None = None
        self._first_chunk_timeout = first_chunk_timeout
        self._connect_timeout = connect_timeout
        self._request_timeout = request_timeout
        self._probe_timeout = probe_timeout
        self._window_probe_timeout = window_probe_timeout
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
        self._probed_windows: dict[str, int] = {}
        self._templates: dict[str, TemplateCost] = {}
        self._served: dict[str, str] = {}
        self._model_hint = ""
        self._tokenizer: TokenizerEndpoint | None = None
        self._tokenizer_known = False
        self._tokenizer_lock = asyncio.Lock()
        self._no_renderer: NotRendered | None = None

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
            cleanup.callback(self._stream_closed)
            await self._stream_opens()
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
            if not received and isinstance(chunk, dict) and isinstance(chunk.get("model"), str):
                self._served[model] = chunk["model"]
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
                raise await self._empty_reply(sent, model)
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
        hung_up = False
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
            except openai.APITimeoutError as exc:
                raise self._connection_failure(exc) from None
            except openai.APIConnectionError as exc:
                # A kept-alive connection the server had closed (llama-cpp-python does after
                # its window probe) fails before any answer: a fresh one is tried, once.
                if hung_up or not _closed_before_answering(exc):
                    raise self._connection_failure(exc) from None
                hung_up = True
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
            # The server said so just now: an older probe (a restart since?) no longer holds.
            self._probed_windows.pop(model, None)

    async def _empty_reply(self, sent: Sequence[Mapping[str, str]], model: str) -> ProviderError:
        """An empty stream; llama-cpp-python's way of refusing an over-long streamed prompt,
        which one probe of its window and one count of the prompt tell apart."""
        window = prompt = None
        ask = self._side_requests()
        tokenizer = await self._tokenizer_endpoint(ask, model)
        if tokenizer is LLAMA_CPP_PYTHON_TOKENIZER:
            context = Context(model=model, host=self._host, tokenizer=tokenizer.name)
            found = await LlamaCppPythonProbe().detect(ask, context)
            # The stream has ended (empty), but is still open: count without waiting for it.
            prompt = await self._count_tokens("\n".join(m.get("content") or "" for m in sent))
            if found is not None and found.window and prompt and prompt >= found.window * 0.9:
                window = found.window
        error = empty_reply_error(
            likely_overflow=self._likely_overflow(sent, model),
            window=window,
            prompt_tokens=prompt if window is not None else None,
        )
        self._learn_window(model, error)
        return error

    def _likely_overflow(self, messages: Sequence[Mapping[str, str]], model: str) -> bool:
        """Whether an empty reply is probably LM Studio-style silence about an overflow."""
        window = self._learned_windows.get(model) or self._described_windows.get(model)
        if window is None:
            return False
        # About 4 characters per token; a rough estimate is enough to choose the wording.
        estimate = sum(len(m.get("content") or "") for m in messages) / 4 + 4 * len(messages)
        return estimate >= 0.8 * window

    def served_model(self, model: str) -> str | None:
        return self._served.get(model)

    # -- models --------------------------------------------------------------------------------

    async def model_listing(self) -> ModelListing:
        try:
            page = await self._client.models.list(timeout=self._request_timeout)
        except openai.APIStatusError as exc:
            raise await self._status_failure(exc, "", "", list_models=False) from None
        except openai.APIConnectionError as exc:
            raise self._connection_failure(exc) from None
        except openai.APIError as exc:
            raise unreadable_reply_error(exc.message, secrets=self._secrets) from None
        entries = [model.to_dict() for model in page.data]  # with the fields only a server has
        return ModelListing(tuple(model.id for model in page.data), {"data": entries})

    async def _models_quietly(self) -> list[str]:
        """The server's models for an error message; nothing if it cannot say quickly."""
        try:
            async with asyncio.timeout(self._probe_timeout):
                return await self.list_models()
        except (ProviderError, TimeoutError):
            return []

    # -- the server ------------------------------------------------------------------------------

    def _is_hosted(self) -> bool:
        return self._host in HOSTED

    async def describe_server(
        self, model: str, configured_window: int | None, *, listing: ModelListing | None = None
    ) -> ServerInfo:
        ask = self._side_requests()
        if listing is not None:
            ask.answered(
                f"{self.base_url}/models", Answer(reached=True, status=200, data=listing.data)
            )
        tokenizer = await self._tokenizer_endpoint(ask, model)
        learned = self._learned_windows.get(model)
        probed = self._probed_windows.get(model)
        context = Context(
            model=model,
            host=self._host,
            learned_window=learned or probed,
            tokenizer=tokenizer.name if tokenizer else None,
        )
        (kind, window, source, warnings), template = await asyncio.gather(
            detect(ask, context, configured_window=configured_window),
            self._template_cost(ask, model, tokenizer),
        )
        if source == "learned from an error" and learned is None:
            source = "probed"  # probed once before, and remembered
        elif source == "probed":
            self._probed_windows[model] = window
        self._described_windows[model] = window
        return ServerInfo(
            kind=kind,
            base_url=self.base_url,
            model=model,
            context_window=window,
            window_source=source,
            tokenizer=tokenizer is not None,
            tokenizer_name=tokenizer.name if tokenizer else None,
            template=template,
            warnings=warnings,
        )

    async def _template_cost(
        self, ask: SideRequests, model: str, tokenizer: TokenizerEndpoint | None
    ) -> TemplateCost | None:
        """The chat template's cost, calibrated once per model where the server can count."""
        if tokenizer is None:
            return None
        if model not in self._templates:
            # The calibration is the model answering: counting waits for it as it waits for
            # a reply, since llama-cpp-python drops a request another one interrupts.
            try:
                await self._stream_opens()
                cost = await calibrate_template(ask, model, tokenizer)
            finally:
                self._stream_closed()
            if cost is None:
                return None  # asked again next time: the server may have been busy
            self._templates[model] = cost
        return self._templates[model]

    def _quiet(self) -> asyncio.Event:
        """Set while no reply streams (made on first use, in the loop that uses it)."""
        if self._no_stream is None:
            self._no_stream = asyncio.Event()
            self._no_stream.set()
        return self._no_stream

    def _asides_done(self) -> asyncio.Event:
        """Set while no background side request is out (made on first use)."""
        if self._no_aside is None:
            self._no_aside = asyncio.Event()
            self._no_aside.set()
        return self._no_aside

    async def _stream_opens(self) -> None:
        """A reply (or the calibration's) is about to be asked for: background side requests
        wait from now on, and those already out are answered first, since llama-cpp-python
        ends a stream when another request reaches it while it streams."""
        self._streams_open += 1
        self._quiet().clear()
        await self._asides_done().wait()

    @contextlib.asynccontextmanager
    async def _aside(self) -> AsyncIterator[None]:
        """Room for one background side request (a count, a rendering) between replies."""
        # Woken when a reply ended, another may have begun before this task ran again.
        while self._streams_open:
            await self._quiet().wait()
        self._asides_open += 1
        self._asides_done().clear()
        try:
            yield
        finally:
            self._asides_open -= 1
            if self._asides_open == 0:
                self._asides_done().set()

    def _stream_closed(self) -> None:
        self._streams_open -= 1
        if self._streams_open == 0:
            self._quiet().set()

    async def count_tokens(self, text: str) -> int | None:
        # Counting is background work: it waits for the reply being streamed, because
        # llama-cpp-python ends a stream when another request arrives (`interrupt_requests`).
        async with self._aside():
            return await self._count_tokens(text)

    async def _count_tokens(self, text: str) -> int | None:
        endpoint = await self._tokenizer_endpoint(self._side_requests(), "")
        if endpoint is None:
            return None
        answer = await self._probe(
            "POST", self._root_url + endpoint.path, endpoint.payload(text, self._model_hint)
        )
        return endpoint.count_of(answer)

    @property
    def renders(self) -> bool:
        return not self._is_hosted() and self._no_renderer is None

    async def render_prompt(
        self, messages: Sequence[Mapping[str, str]], *, model: str
    ) -> Rendering:
        if self._is_hosted():
            return HOSTED_RENDERING
        if self._no_renderer is not None:
            return self._no_renderer
        async with self._aside():  # background work too, as counting is
            rendering = await render_messages(self._side_requests(), messages, model)
        if isinstance(rendering, NotRendered) and rendering.lasting:
            self._no_renderer = rendering  # a server without the endpoint is not asked again
        return rendering

    def _side_requests(self) -> SideRequests:
        return SideRequests(
            self._probe,
            root_url=self._root_url,
            base_url=self.base_url,
            local=not self._is_hosted(),
            slow_timeout=self._window_probe_timeout,
            reading_timeout=self._first_chunk_timeout,
        )

    async def _tokenizer_endpoint(self, ask: SideRequests, model: str) -> TokenizerEndpoint | None:
        """Which tokenize endpoint the server has, found once and remembered."""
        if self._is_hosted():
            return None
        if model:
            self._model_hint = model
        async with self._tokenizer_lock:
            if self._tokenizer_known:
                return self._tokenizer
            self._tokenizer, reached = await find_tokenizer(ask, self._model_hint)
            # Remember "none" only once the server answered: it may simply not be up yet.
            self._tokenizer_known = reached
            return self._tokenizer

    async def _probe(
        self,
        method: str,
        url: str,
        payload: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Answer:
        """A short side request; any failure is just "no answer" (the server may not have it)."""
        headers = request_headers(self._api_key, self._headers)
        try:
            response = await self._side_request(method, url, payload, headers, timeout)
        except httpx2.TimeoutException:
            return Answer(reached=False, timed_out=True)
        except httpx2.HTTPError:
            return Answer(reached=False)
        except RuntimeError:
            # Closed (the app is leaving): background counting ends without a word.
            if not self._http.is_closed:
                raise
            return Answer(reached=False)
        try:
            return Answer(reached=True, status=response.status_code, data=response.json())
        except ValueError:
            return Answer(reached=True, status=response.status_code)

    async def _side_request(
        self,
        method: str,
        url: str,
        payload: Mapping[str, Any] | None,
        headers: Mapping[str, str],
        timeout: float | None,
    ) -> httpx2.Response:
        limit = timeout or self._probe_timeout
        try:
            return await self._http.request(
                method, url, json=payload, headers=headers, timeout=limit
            )
        except httpx2.TimeoutException:
            raise
        except httpx2.HTTPError:
            # A kept-alive connection the server closed (after a stream it broke off) fails
            # at once: a fresh one is tried before giving up.
            return await self._http.request(
                method, url, json=payload, headers=headers, timeout=limit
            )


def _closed_before_answering(error: openai.APIConnectionError) -> bool:
    """Whether the server closed the connection without an answer (not: nothing listens)."""
    return isinstance(error.__cause__, httpx2.RemoteProtocolError | httpx2.ReadError)


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
