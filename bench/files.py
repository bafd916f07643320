"""Benchmark: planning with a 1 MB file attached, too big for its share, on every keystroke.

A file is split and counted once, when it is attached; each plan then ranks its parts for
the draft and fills the files share. The baseline is what an app pays that tokenizes the
file again for every request (the same plan, plus counting the file's text once). Figures
are medians of CPU time (`time.process_time`), which the load of a shared machine does
not swing as it swings wall time.

Run: python bench/files.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import synthetic_texts

from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget, Layer
from ctxchat.core.files import AttachedFile, PartIndex, sendable_text, split_into_parts
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.tokens import CachingCounter, count_message, counter_for_model

MESSAGES = 2_000
FILE_BYTES = 1_000_000
RUNS = 50
DRAFTS = [
    "What did we decide about the database migration?",
    "Why does the cache miss when the prefix changes?",
    "Которое решение мы приняли насчёт истории сообщений?",
]


def main() -> None:
    counter = CachingCounter(counter_for_model("gpt-4o"))
    texts = synthetic_texts(MESSAGES)
    roles = ["user" if i % 2 == 0 else "assistant" for i in range(MESSAGES)]
    history = [
        HistoryMessage(i + 1, role, text, count_message(counter, role, text).tokens)
        for i, (role, text) in enumerate(zip(roles, texts, strict=True))
    ]
    lines: list[str] = []
    size = 0
    for index, text in enumerate(synthetic_texts(20_000, seed=11)):
        if size >= FILE_BYTES:
            break
        lines.append(f"{index:05d} {text}\n")
        size += len(lines[-1].encode())
    file_text = sendable_text("".join(lines))
    start = time.process_time()
    parts = split_into_parts(file_text, counter, 500)
    tokens = counter.count_text(file_text)
    attach_ms = (time.process_time() - start) * 1000
    part_index = PartIndex([file_text[p.start : p.end] for p in parts])
    file = AttachedFile(1, "notes.txt", file_text, tokens, parts, index=part_index)
    budget = Budget(128_000, 4_096)
    policy = AdaptivePolicy(task_share=0.05, files_share=0.25)

    def plan(draft: str, files: list[AttachedFile]) -> ContextPlan:
        return assemble_context(
            budget=budget,
            counter=counter,
            mode=Mode.PERSONALIZATION,
            system_prompt="You are a helpful assistant.",
            memory=[],
            summary=None,
            history=history,
            new_input=draft,
            adaptive=policy,
            files=files,
            excluded_ids=(),
        )

    def timed(files: list[AttachedFile], recount: bool) -> float:
        runs = []
        for index in range(RUNS):
            draft = DRAFTS[index % len(DRAFTS)] + " " * (index // len(DRAFTS))
            begin = time.process_time()
            if recount:
                counter_for_model("gpt-4o").count_text(file_text)
            plan(draft, files)
            runs.append(time.process_time() - begin)
        return statistics.median(runs) * 1000

    for draft in DRAFTS:
        plan(draft, [file])  # warm the counts of the parts' lines
    without = timed([], recount=False)
    with_file = timed([file], recount=False)
    naive = timed([file], recount=True)
    layer = plan(DRAFTS[0], [file]).layer(Layer.FILES)
    print(f"file: {len(file_text):,} characters, {tokens:,} tokens, {len(parts)} parts")
    print(f"attaching (split and count once): {attach_ms:.0f} ms")
    print(f"a plan sends {len(layer.items)} parts, {layer.tokens:,} tokens of {layer.budget:,}")
    print(f"plan per keystroke, {MESSAGES:,} messages, no file: {without:.2f} ms")
    print(f"... with the file attached (parts ranked for the draft): {with_file:.2f} ms")
    print(f"... re-tokenizing the file for each plan: {naive:.1f} ms")
    print(f"ratio: {naive / with_file:.0f}x faster with the parts counted once")


if __name__ == "__main__":
    main()
