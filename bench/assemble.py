"""Benchmark: one turn's context assembly at 10,000 messages, cached counts vs re-tokenizing.

Both are timed in CPU time (`time.process_time`): on a machine shared with other work, wall
time swings with the load (the ratio read anywhere from 30x to 320x), while the CPU time
one plan takes does not. Each figure is a median.

Run: python bench/assemble.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import synthetic_texts

from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.history import HistoryMessage, SummaryState
from ctxchat.core.memory import MemoryEntry, MemoryKind, Mode
from ctxchat.core.tokens import CachingCounter, count_message, counter_for_model

MESSAGES = 10_000
RUNS = 200
NAIVE_RUNS = 5


def main() -> None:
    base_counter = counter_for_model("gpt-4o")
    counter = CachingCounter(base_counter)
    texts = synthetic_texts(MESSAGES)
    roles = ["user" if i % 2 == 0 else "assistant" for i in range(MESSAGES)]
    # Counted once, as the store does when a message is saved.
    history = [
        HistoryMessage(i + 1, role, text, count_message(base_counter, role, text).tokens)
        for i, (role, text) in enumerate(zip(roles, texts, strict=True))
    ]
    memory = [
        MemoryEntry(i, MemoryKind(kind), f"Entry {i}: {texts[i][:80]}", importance=1 + i % 10)
        for i, kind in enumerate(["fact", "constraint", "preference", "hypothesis"] * 10)
    ]
    summary = SummaryState(4, " ".join(texts[:40]), 1, 6_000)
    budget = Budget(128_000, 4_096)
    question = "What did we decide about the database?"

    def cached_turn() -> object:
        return assemble_context(
            budget=budget,
            counter=counter,
            mode=Mode.PERSONALIZATION,
            system_prompt="You are a helpful assistant.",
            memory=memory,
            summary=summary,
            history=history,
            new_input=question,
            # The session keeps the ids of excluded messages (none here) with the history.
            excluded_ids=(),
        )

    def naive_turn() -> object:
        # The baseline a simpler app pays: every message of the history re-tokenized per turn.
        recounted = [
            HistoryMessage(
                m.id, m.role, m.content, count_message(base_counter, m.role, m.content).tokens
            )
            for m in history
        ]
        return assemble_context(
            budget=budget,
            counter=base_counter,
            mode=Mode.PERSONALIZATION,
            system_prompt="You are a helpful assistant.",
            memory=memory,
            summary=summary,
            history=recounted,
            new_input=question,
        )

    cached_turn()  # warm the cache of system prompt, memory lines and summary
    cached = []
    for _ in range(RUNS):
        start = time.process_time()
        plan = cached_turn()
        cached.append(time.process_time() - start)
    naive = []
    for _ in range(NAIVE_RUNS):
        start = time.process_time()
        naive_turn()
        naive.append(time.process_time() - start)

    cached_ms = statistics.median(cached) * 1000
    naive_ms = statistics.median(naive) * 1000
    working = plan.layer(Layer.WORKING)  # type: ignore[attr-defined]
    print(f"history: {MESSAGES:,} messages, {sum(m.tokens for m in history):,} tokens")
    print(f"plan: {plan.tokens:,} tokens, {len(working.items)} working messages")  # type: ignore[attr-defined]
    print(f"cached assembly (median of {RUNS}, CPU time): {cached_ms:.2f} ms")
    print(f"naive re-tokenizing baseline (median of {NAIVE_RUNS}): {naive_ms:.1f} ms")
    print(f"ratio: {naive_ms / cached_ms:.0f}x faster with cached counts")


if __name__ == "__main__":
    main()
