"""Benchmark: tokens sent to the summarizer over a 300-turn conversation.

Incremental folding (previous summary + the new overflow) against re-summarizing the whole
history each time, both against the local scripted server in the same run.
Run: python bench/summarize.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import synthetic_texts

from ctxchat.chat.options import SessionOptions
from ctxchat.chat.session_factory import Connect, open_session
from ctxchat.chat.summarizer import Summarizer
from ctxchat.core.summary import build_fold_request
from ctxchat.core.tokens import count_message
from ctxchat.testing import harness
from ctxchat.testing.server import ScriptedModelServer

TURNS = 300


def summary_reply(body: dict[str, Any]) -> str:
    # A summary about a third the length of what it was given, capped like a real one.
    words = body["messages"][1]["content"].split()
    return " ".join(words[: min(len(words) // 3, 600)]) or "empty"


async def run(root: Path) -> tuple[int, int, int, float]:
    with ScriptedModelServer(models=["gpt-4o"], default_reply=summary_reply) as server:
        # The session is opened as every command and the app open theirs.
        config = harness.write_config(
            root,
            server.base_url,
            context_window=8_000,
            output_reserve=1_000,
            extra="[context]\nmin_recent = 10\n[summary]\nmin_messages = 6\nmin_tokens = 1000000\n",
        )
        workspace = harness.open_test_workspace(root, config)
        settings = workspace.settings
        store = workspace.store
        conversation = store.conversations.create_conversation("bench").id
        session = open_session(workspace, SessionOptions(), conversation, connect=Connect.MUST)
        summarizer = Summarizer.for_session(session)
        texts = synthetic_texts(TURNS * 2, seed=11)
        naive_tokens = 0
        folds = 0
        started = time.perf_counter()
        for turn in range(TURNS):
            for role, text in (("user", texts[2 * turn]), ("assistant", texts[2 * turn + 1])):
                store.messages.add_message(
                    conversation,
                    role,
                    text,
                    tokens=session.count(role, text),
                    exact=True,
                    encoding=session.counter.name,
                )
            session.forget_history()
            fold = session.pending_fold()
            if fold is None:
                continue
            folds += 1
            await summarizer.fold(fold)
            # What re-summarizing everything from the start would have sent at this point.
            covered = [m for m in session.history() if m.id <= fold.last_id]
            request = build_fold_request(settings.summary.strategy, None, covered)
            naive_tokens += sum(
                count_message(session.counter, m["role"], m["content"]).tokens for m in request
            )
        elapsed = time.perf_counter() - started
        await session.aclose()
        workspace.close()
        return summarizer.tokens_sent, naive_tokens, folds, elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        incremental, naive, folds, elapsed = asyncio.run(run(Path(directory)))
    print(f"conversation: {TURNS} turns, {folds} folds ({elapsed:.1f} s against the local server)")
    print(f"tokens sent to the summarizer, incremental folding: {incremental:,}")
    print(f"tokens a re-summarize-everything approach would send: {naive:,}")
    print(f"ratio: {naive / incremental:.1f}x fewer tokens with incremental folding")


if __name__ == "__main__":
    main()
