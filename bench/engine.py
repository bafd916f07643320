"""Benchmark: a reply from the engine (SmolLM2 135M) through ctxchat against the same model
asked directly through the engine's HTTP API, in one run: time to first token and tokens
per second of each, the engine's start and its memory.

Each request has a question of its own (the same length), so no reply reads a prompt the
engine cached for another; the two ways take turns. Run: python bench/engine.py [RUNS]
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx2

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect, open_session
from ctxchat.chat.turn import ReplyDelta, TurnFinished, send_message
from ctxchat.chat.workspace import open_workspace
from ctxchat.engine.control import EngineOptions, ensure_engine, stop_engine
from ctxchat.engine.files import gigabytes
from ctxchat.engine.state import EngineState, resident_memory

RUNS = 5
MAX_TOKENS = 64
SYSTEM = "You are terse."
CONFIG = f"""[profiles.local]
engine = "smollm2"
output_reserve = {MAX_TOKENS}
temperature = 0
[context]
system_prompt = "{SYSTEM}"
[summary]
auto = false
[recall]
enabled = false
"""


def question(number: int) -> str:
    return f"Question {number:03d}: describe the colour of the sky in one short paragraph."


async def direct(engine: EngineState, text: str) -> tuple[float, float, int]:
    """(seconds to the first token, seconds writing, tokens) asking the engine directly."""
    body = {
        "model": engine.model,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}],
        "max_tokens": MAX_TOKENS,
        "temperature": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    headers = {"Authorization": f"Bearer {engine.key}"}
    first = tokens = 0.0
    started = time.perf_counter()
    async with (
        httpx2.AsyncClient(timeout=600) as client,
        client.stream(
            "POST", f"{engine.base_url}/chat/completions", json=body, headers=headers
        ) as answer,
    ):
        async for line in answer.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line.removeprefix("data: "))
            if not first and any(c["delta"].get("content") for c in chunk.get("choices", [])):
                first = time.perf_counter()
            if chunk.get("usage"):
                tokens = chunk["usage"]["completion_tokens"]
    ended = time.perf_counter()
    return first - started, ended - first, int(tokens)


async def through_ctxchat(root: Path, conversation: int, text: str) -> tuple[float, float, int]:
    """(seconds to the first token, seconds writing, tokens) as `ctxchat send` gets them."""
    workspace = open_workspace(config=root / "config.toml", data_dir=root / "data")
    try:
        session = open_session(workspace, SessionOptions(), conversation, connect=Connect.MUST)
        first = 0.0
        started = time.perf_counter()
        reply = None
        async for event in send_message(session, text):
            if isinstance(event, ReplyDelta) and not first and event.text:
                first = time.perf_counter()
            if isinstance(event, TurnFinished):
                reply = event.reply
        ended = time.perf_counter()
        assert reply is not None and reply.completion_tokens, reply
        if session.backend is not None:
            await session.backend.aclose()
        return first - started, ended - first, reply.completion_tokens
    finally:
        workspace.close()


def rate(runs: list[tuple[float, float, int]]) -> tuple[float, float]:
    """(median seconds to the first token, median tokens per second)."""
    ttft = statistics.median(r[0] for r in runs)
    speed = statistics.median(r[2] / r[1] for r in runs if r[1] > 0)
    return ttft, speed


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "config.toml").write_text(CONFIG)
        engine_dir = root / "data" / "engine"
        started = time.perf_counter()
        engine = ensure_engine(engine_dir, EngineOptions())
        start = time.perf_counter() - started
        try:
            workspace = open_workspace(config=root / "config.toml", data_dir=root / "data")
            conversations = [workspace.start_conversation(workspace.settings.profile())]
            workspace.close()
            await direct(engine, question(0))  # both ways start warm
            await through_ctxchat(root, conversations[0], question(1))
            direct_runs, ctxchat_runs = [], []
            for number in range(runs):
                # A new conversation each time: the same request shape as the direct one.
                workspace = open_workspace(config=root / "config.toml", data_dir=root / "data")
                conversation = workspace.start_conversation(workspace.settings.profile())
                workspace.close()
                direct_runs.append(await direct(engine, question(100 + number)))
                ctxchat_runs.append(
                    await through_ctxchat(root, conversation, question(200 + number))
                )
            memory = resident_memory(engine.pid)
        finally:
            stop_engine(engine_dir)
    d_ttft, d_speed = rate(direct_runs)
    c_ttft, c_speed = rate(ctxchat_runs)
    print(f"engine start (SmolLM2 135M, loaded and listening): {start:.2f} s")
    print(f"engine memory: {gigabytes(memory) if memory else 'unknown'}")
    print(f"{runs} replies of up to {MAX_TOKENS} tokens each way, medians:")
    print(f"  direct HTTP: first token {d_ttft * 1000:.0f} ms, {d_speed:.1f} tokens/s")
    print(f"  ctxchat:     first token {c_ttft * 1000:.0f} ms, {c_speed:.1f} tokens/s")
    print(
        f"  ctxchat adds {(c_ttft - d_ttft) * 1000:+.0f} ms to the first token, "
        f"{(c_speed / d_speed - 1) * 100:+.1f}% tokens/s"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS))
