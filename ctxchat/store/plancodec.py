"""A compact, exact encoding of a context plan: texts by reference, columns, zlib.

A plan repeats the conversation's recent messages, so storing each reply's plan as
`to_dict()` JSON would cost the whole context window again for every reply. Here every text
is replaced by the id of a stored blob (each distinct text is stored once per conversation),
the messages become columns with delta-coded ids, and the rest is compressed with a preset
dictionary of the words every plan repeats. `unpack` + `rebuild` give back an equal plan.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxchat.core.plan import ContextPlan
from ctxchat.redaction import shown_url

# First byte of a packed plan: which encoding (and which dictionary) it uses.
CODEC_V1 = 1

# What plans keep repeating, so even a short plan compresses well. Stored plans depend on
# these exact bytes: never edit it; add a V2 codec with a new dictionary instead.
DICTIONARY_V1 = (
    b'"excluded: objective mode leaves out preferences","excluded: objective mode leaves out '
    b'hypotheses","excluded by you","dropped: over the memory budget","dropped: over the summary '
    b'budget","dropped: over the working budget, not yet summarized","excluded: failed reply",'
    b'"cut at a sentence boundary to fit its share","over its share by ","Only ","edited by you"'
    b',"messages:","reason":"budget","reason":"mode","reason":"disabled","reason":"summarized",'
    b'"reason":"failed","reason":"scope","detail":"in summary v1","label":"'
    b'"format":1,"status":"ok","mode":"personalization","mode":"objective","budget":{"context_'
    b'window":128000,"output_reserve":4096,"total":123904,"shares":{"system":0.1,"memory":0.1,'
    b'"summary":0.2,"working":0.6}},"counter":{"name":"o200k_base","exact":true,"note":"exact: '
    b'o200k_base, the encoding of gpt-4o"},"counter":{"name":"cl100k_base","exact":false,"note":'
    b'"approximate: counted with cl100k_base"},"counter":{"name":"estimate","exact":false,"note":'
    b'"estimate: no tokenizer for this model"},"tokens":0,"over_by":0,"warnings":[],"layers":[{"'
    b'layer":"system","budget":12390,"share":0.1,"tokens":0,"items":[{"ref":"system","tokens":0,'
    b'"label":""}],"left_out":[],"notes":[]},{"layer":"memory","budget":12390,"share":0.1,"tokens'
    b'":0,"items":[{"ref":"memory:1","tokens":0,"label":""}],"left_out":[{"ref":"memory:2","token'
    b's":0,"reason":"mode","detail":"","label":""}],"notes":[]},{"layer":"summary","budget":24780'
    b',"share":0.2,"tokens":0,"items":[{"ref":"summary:v1","tokens":0,"label":"v1, messages 1-2"}'
    b'],"left_out":[],"notes":[]},{"layer":"working","budget":74342,"share":0.6,"tokens":0,"items"'
    b':null,"left_out":[{"ref":"messages:1-2","tokens":0,"reason":"summarized","detail":"in summ'
    b'ary v1","label":"2 messages"}],"notes":[]},{"layer":"input","budget":0,"share":0.0,"tokens":'
    b'0,"items":[{"ref":"input","tokens":0,"label":""},{"ref":"reply-primer","tokens":3,"label":"'
    b'primes the reply"}],"left_out":[],"notes":[]}],"messages":{"role":["system","system","syst'
    b'em","user","assistant","user","assistant","user"],"layer":["system","memory","summary","wor'
    b'king","working","working","working","working","input"],"tokens":[],"ref":["system","memory'
    b'","summary:v1",1,1,1,1,"input"],"blob":[1,1,1,1,1]}}'
)

_MESSAGE_REF = "message:"


@dataclass(frozen=True, slots=True)
class PackedPlan:
    """A stored plan decoded, its texts still given as blob ids (one per request message)."""

    skeleton: dict[str, Any]
    blob_ids: tuple[int, ...]


def pack(plan: ContextPlan, blob_ids: Sequence[int]) -> bytes:
    """The plan as bytes; `blob_ids[i]` is the stored blob holding `plan.messages[i].content`."""
    if len(blob_ids) != len(plan.messages):
        raise ValueError(f"{len(blob_ids)} blob ids for {len(plan.messages)} messages")
    data = plan.to_dict()
    messages = data.pop("messages")
    request = data.get("request")
    if request is not None and request["body"].get("messages") == plan.request_messages():
        # The body's messages are the plan's: kept once, put back by `rebuild`.
        data["request"] = {**request, "body": {**request["body"], "messages": None}}
    del data["free"]  # derived from the total and the tokens used
    for layer in data["layers"]:
        # Working memory lists each message again as an item; say "same as the messages".
        if layer["items"] == _derived_items(messages, layer["layer"]):
            layer["items"] = None
    data["messages"] = {
        "role": [m["role"] for m in messages],
        "layer": [m["layer"] for m in messages],
        "tokens": [m["tokens"] for m in messages],
        "ref": _encode_refs([m["ref"] for m in messages]),
        "blob": _deltas(blob_ids),
    }
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS, zdict=DICTIONARY_V1)
    return bytes([CODEC_V1]) + compressor.compress(raw) + compressor.flush()


def unpack(packed: bytes) -> PackedPlan:
    if not packed or packed[0] != CODEC_V1:
        codec = packed[0] if packed else None
        raise ValueError(f"stored plan uses codec {codec}, this version reads {CODEC_V1}")
    decompressor = zlib.decompressobj(zlib.MAX_WBITS, zdict=DICTIONARY_V1)
    raw = decompressor.decompress(packed[1:]) + decompressor.flush()
    data: dict[str, Any] = json.loads(raw)
    return PackedPlan(data, tuple(_undeltas(data["messages"]["blob"])))


def rebuild(packed: PackedPlan, texts: Mapping[int, str]) -> ContextPlan:
    """The plan again, its texts looked up in `texts` (blob id → text)."""
    data = dict(packed.skeleton)
    columns = data["messages"]
    refs = _decode_refs(columns["ref"])
    messages = [
        {"role": role, "layer": layer, "tokens": tokens, "ref": ref, "content": texts[blob]}
        for role, layer, tokens, ref, blob in zip(
            columns["role"],
            columns["layer"],
            columns["tokens"],
            refs,
            packed.blob_ids,
            strict=True,
        )
    ]
    data["messages"] = messages
    request = data.get("request")
    if request is not None and isinstance(request.get("url"), str):
        # Plans stored before the URL was masked may hold a password in it.
        request = data["request"] = {**request, "url": shown_url(request["url"])}
    if request is not None and request["body"].get("messages", ()) is None:
        sent = [{"role": m["role"], "content": m["content"]} for m in messages]
        data["request"] = {**request, "body": {**request["body"], "messages": sent}}
    data["layers"] = [
        {**layer, "items": _derived_items(messages, layer["layer"])}
        if layer["items"] is None
        else layer
        for layer in data["layers"]
    ]
    return ContextPlan.from_dict(data)


def _derived_items(messages: list[dict[str, Any]], layer: str) -> list[dict[str, Any]]:
    return [
        {"ref": m["ref"], "tokens": m["tokens"], "label": m["role"]}
        for m in messages
        if m["layer"] == layer
    ]


def _encode_refs(refs: list[str]) -> list[str | int]:
    """`message:N` refs become the difference from the previous one (mostly 1 or 2)."""
    encoded: list[str | int] = []
    previous = 0
    for ref in refs:
        number = ref.removeprefix(_MESSAGE_REF)
        if ref.startswith(_MESSAGE_REF) and number.isdecimal() and str(int(number)) == number:
            encoded.append(int(number) - previous)
            previous = int(number)
        else:
            encoded.append(ref)
    return encoded


def _decode_refs(encoded: list[str | int]) -> list[str]:
    refs: list[str] = []
    previous = 0
    for item in encoded:
        if isinstance(item, int):
            previous += item
            refs.append(f"{_MESSAGE_REF}{previous}")
        else:
            refs.append(item)
    return refs


def _deltas(numbers: Sequence[int]) -> list[int]:
    previous = 0
    out = []
    for number in numbers:
        out.append(number - previous)
        previous = number
    return out


def _undeltas(deltas: Sequence[int]) -> list[int]:
    total = 0
    out = []
    for delta in deltas:
        total += delta
        out.append(total)
    return out
