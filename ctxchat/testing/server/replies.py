"""Writing a scripted reply: whole (one JSON body) or streamed (chunks), with its faults."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Protocol

from ctxchat.testing.server.answers import Answer
from ctxchat.testing.server.faults import (
    MID_STREAM_FAULTS,
    Fault,
    PendingFault,
    in_stream_message,
)
from ctxchat.testing.server.flavours import Flavour, llama_cpp_timings
from ctxchat.testing.server.script import Reply, simple_token_count
from ctxchat.testing.server.sse import ClientGone, EventWriter

if TYPE_CHECKING:
    from ctxchat.testing.server.scripted import ScriptedModelServer


class Transport(Protocol):
    """What a reply needs from the connection it is written to."""

    def send(self, answer: Answer) -> None:
        """Write a complete response."""

    def drop(self) -> None:
        """Close the connection abruptly, mid-response."""

    def open_stream(self) -> EventWriter:
        """Send the headers of an event stream; return its writer."""


def usage_of(prompt_tokens: int, reply: Reply, cached: int | None) -> dict[str, Any]:
    """The `usage` object of a reply (`cached`: the prompt tokens reused, if reported)."""
    completion = simple_token_count(reply.text) + simple_token_count(reply.reasoning)
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": prompt_tokens + completion,
    }
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return usage


class ReplyWriter:
    """Writes one reply to `model`'s request, shaped by the pending fault if there is one.

    `arrived`: how many requests had reached the server with this one; any later one ends a
    streamed reply early where the server interrupts requests.
    """

    def __init__(
        self,
        server: ScriptedModelServer,
        transport: Transport,
        *,
        model: str,
        reply: Reply,
        usage: dict[str, Any],
        fault: PendingFault | None,
        arrived: int,
    ) -> None:
        self._server = server
        self._transport = transport
        self._model = model
        self._reply = reply
        self._usage = usage
        self._fault = fault
        self._arrived = arrived
        self._kind = fault.fault if fault is not None else None
        self._options = fault.options if fault is not None else {}

    def _in_stream_message(self, prompt_tokens: int) -> str:
        return in_stream_message(
            self._fault, prompt_tokens=prompt_tokens, n_ctx=self._server.n_ctx or 4096
        )

    def whole(self) -> None:
        """Answer a non-streamed request."""
        server, kind, reply = self._server, self._kind, self._reply
        if kind is Fault.DROP:
            self._transport.drop()
            return
        if kind is Fault.STALL and server.stall(self._options):
            return
        if kind is Fault.ERROR_IN_STREAM:
            error = self._in_stream_message(self._usage["prompt_tokens"])
            self._transport.send(Answer.json(200, {"error": error}))
            return
        if kind is Fault.BAD_JSON:
            self._transport.send(Answer(200, b"{not json"))
            return
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.reasoning:
            message[reply.reasoning_field] = reply.reasoning
        choices = (
            []
            if kind is Fault.EMPTY_STREAM
            else [{"index": 0, "message": message, "finish_reason": reply.finish_reason}]
        )
        whole: dict[str, Any] = {
            "id": server.script_log.next_id(),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self._model,
            "choices": choices,
            "usage": self._usage,
        }
        self._transport.send(Answer.json(200, {**whole, **self._llama_cpp_extras()}))

    def _llama_cpp_extras(self) -> dict[str, Any]:
        """What llama.cpp adds to a reply's last chunk or whole answer: its build and timings."""
        if self._server.flavour is not Flavour.LLAMA_CPP:
            return {}
        return {"system_fingerprint": "b0-unknown", "timings": llama_cpp_timings(self._usage)}

    def streamed(self, *, include_usage: bool) -> bool:
        """Answer a streamed request; False when the client went away before the end."""
        events = self._transport.open_stream()
        try:
            self._stream_body(events, self._usage if include_usage else None)
        except ClientGone:
            self._server.script_log.note_abort()
            return False
        return True

    def _stream_body(self, events: EventWriter, usage: dict[str, Any] | None) -> None:
        server, kind, options, reply = self._server, self._kind, self._options, self._reply
        # LM Studio reports its error before any content; drops and stalls come mid-reply.
        after = int(options.get("after", 0 if kind is Fault.ERROR_IN_STREAM else 2))
        ident = server.script_log.next_id()
        created = int(time.time())
        build = {"system_fingerprint": "b0-unknown"} if server.flavour is Flavour.LLAMA_CPP else {}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self._model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **build,
            }

        if kind is Fault.EMPTY_STREAM:
            events.event("[DONE]")
            events.end()
            return
        if kind is Fault.BAD_JSON:
            events.event("{not json")
            events.end()
            return
        # llama.cpp opens with no content at all (null), others with an empty one.
        opening = None if server.flavour is Flavour.LLAMA_CPP else ""
        events.event(chunk({"role": "assistant", "content": opening}))
        for payload in reply.raw_chunks:
            events.event(json.dumps(payload))
        for piece in server.pieces(reply.reasoning):
            if server.pause(server.latency):
                return
            events.event(chunk({reply.reasoning_field: piece}))
        pieces = server.pieces(reply.text)
        # A fault fires before content chunk number `after` (or at the end of a short reply).
        after_finish = bool(options.get("after_finish"))
        fire_at = min(after, len(pieces)) if kind in MID_STREAM_FAULTS else -1
        if after_finish:
            fire_at = -1
        for sent in range(len(pieces) + 1):
            if sent == fire_at:
                if kind is Fault.DROP:
                    self._transport.drop()
                    return
                if kind is Fault.ERROR_IN_STREAM:
                    prompt = (usage or {"prompt_tokens": 0})["prompt_tokens"]
                    events.event({"error": self._in_stream_message(prompt)})
                    events.end()
                    return
                if server.stall(options):
                    return
            if sent == len(pieces):
                break
            if server.pause(server.latency):
                return
            if server.interrupt_requests and server.script_log.arrivals() > self._arrived:
                # Another request came after this one (while the prompt was read, too: it
                # waits for the model all the same): this reply ends here.
                events.event("[DONE]")
                events.end()
                return
            events.event(chunk({"content": pieces[sent]}))
        # llama.cpp's timings come with the usage, or with the finish when usage is not asked.
        extras = self._llama_cpp_extras()
        events.event({**chunk({}, reply.finish_reason), **({} if usage else extras)})
        if after_finish and kind is Fault.DROP:
            self._transport.drop()
            return
        if after_finish and kind is Fault.STALL and server.stall(options):
            return
        if usage is not None:
            final = {**chunk({}), "choices": [], "usage": usage, **extras}
            events.event(final)
        events.event("[DONE]")
        events.end()
