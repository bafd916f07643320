"""A scripted OpenAI-compatible model server on loopback, for tests, demos and benchmarks."""

from ctxchat.testing.server.faults import Fault
from ctxchat.testing.server.flavours import Flavour
from ctxchat.testing.server.script import (
    RecordedRequest,
    Reply,
    count_prompt_tokens,
    simple_token_count,
)
from ctxchat.testing.server.scripted import ScriptedModelServer

__all__ = [
    "Fault",
    "Flavour",
    "RecordedRequest",
    "Reply",
    "ScriptedModelServer",
    "count_prompt_tokens",
    "simple_token_count",
]
