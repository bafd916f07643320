"""Benchmark: recall's speed, on queries that find something.

1. Planning the next request of a 10,000-message conversation through ChatSession (store,
   full-text search, conversation term weights, ranking, assembly), with recall off (the
   baseline), with full-text recall, and with semantic recall (query encoding included).
   The conversation is the recall-quality corpus (bench/data), repeated; the questions are
   its own, so every query finds results.
2. The store's full-text search alone over 100,000 messages, for words from common to rare.

Run: python bench/recall.py [--no-semantic]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import varied_texts
from recall_quality import planner, store_messages

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.core.budget import Layer
from ctxchat.core.recall import distinctive_terms, fts_query, query_terms, rank_recall
from ctxchat.store import Store

DATA = Path(__file__).resolve().parent / "data" / "recall_corpus.json"
SESSION_MESSAGES = 10_000
SEARCHED_MESSAGES = 100_000
WINDOW = 16_384
QUESTIONS = 40


def corpus_messages_and_questions() -> tuple[list[tuple[str, str]], list[str]]:
    corpus = json.loads(DATA.read_text(encoding="utf-8"))
    messages: list[tuple[str, str]] = []
    while len(messages) < SESSION_MESSAGES:
        for conversation in corpus["conversations"]:
            messages.extend((m["role"], m["content"]) for m in conversation["messages"])
    questions = [q["question"] for c in corpus["conversations"] for q in c["questions"]]
    return messages[:SESSION_MESSAGES], questions[:: max(1, len(questions) // QUESTIONS)]


def median_plan_ms(session: ChatSession, questions: list[str]) -> tuple[float, float, int]:
    """Median time to plan each question (none cached), wall clock and this process's CPU
    time (what a busy shared machine does not inflate), and how many recalled something."""
    timings = []
    cpu = []
    found = 0
    for question in questions:
        start, start_cpu = time.perf_counter(), time.process_time()
        plan = session.plan(question)
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        found += bool(plan.layer(Layer.RECALL).items)
    return statistics.median(timings) * 1000, statistics.median(cpu) * 1000, found


def session_planning(semantic: bool) -> None:
    messages, questions = corpus_messages_and_questions()
    with tempfile.TemporaryDirectory() as directory:
        store = Store.open(Path(directory) / "recall.db")
        conversation = store_messages(store, "bench", messages)
        print(
            f"session: {len(messages):,} messages, {len(questions)} questions, "
            f"window {WINDOW:,} (reserve 512)"
        )
        modes = [("recall off (baseline)", "off"), ("full-text recall", "full-text")]
        prepared = None
        if semantic and SemanticRecall.possible():
            prepared = SemanticRecall(store, conversation)
            start = time.perf_counter()
            prepared.prepare()
            embedded = prepared.embed_rest(batch=64, pause=0.0)
            print(f"  embedded {embedded:,} messages in {time.perf_counter() - start:.0f} s")
            modes.append(("semantic recall (fused)", "semantic"))
        baseline = 0.0
        for label, mode in modes:
            session = planner(store, mode, conversation, WINDOW, prepared)
            session.plan(None)  # history read and counted once, as when a conversation opens
            median, cpu, found = median_plan_ms(session, questions)
            baseline = baseline or median
            print(
                f"  {label}: {median:.1f} ms median per plan, {cpu:.1f} ms of CPU "
                f"({median / baseline:.1f}x the baseline); recalled something for {found} of "
                f"{len(questions)}"
            )
        store.close()


def store_search() -> None:
    texts = varied_texts(SEARCHED_MESSAGES)
    with tempfile.TemporaryDirectory() as directory:
        store = Store.open(Path(directory) / "search.db")
        conversation = store.conversations.create_conversation("bench").id
        with store.transaction():
            for index, text in enumerate(texts):
                role = "user" if index % 2 == 0 else "assistant"
                store.messages.add_message(
                    conversation, role, text, tokens=len(text) // 4, exact=False, encoding="e"
                )
        ids = [m.id for m in store.messages.messages(conversation)]
        position = {message_id: index for index, message_id in enumerate(ids)}
        newest = len(ids) - 1
        documents = Counter(w for text in texts for w in set(text.rstrip(".").lower().split()))
        searchable = [(w, n) for w, n in documents.items() if query_terms(w) == [w]]
        print(f"store search over {SEARCHED_MESSAGES:,} messages (full-text only):")
        # Words held by about 5,000, 1,000, 100 and 10 messages: all searched, all found.
        for target in (5_000, 1_000, 100, 10):
            word, held = min(searchable, key=lambda item: abs(item[1] - target))
            terms = query_terms(f"What did we say about {word}?")
            timings = []
            hits = []
            for _ in range(7):
                start = time.perf_counter()
                kept, _skipped = distinctive_terms(terms, store.search.term_documents(terms))
                candidates = store.search.search_messages(
                    conversation,
                    fts_query(kept),
                    limit=100,
                    age_of=lambda i: newest - position[i],
                )
                hits = rank_recall(candidates, kept)
                timings.append(time.perf_counter() - start)
            print(
                f"  a word in {held:,} messages: {statistics.median(timings) * 1000:.1f} ms "
                f"(median of 7), {len(hits)} results"
            )
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-semantic", action="store_true")
    parser.add_argument("--only", choices=("session", "store"))
    arguments = parser.parse_args()
    if arguments.only != "store":
        session_planning(not arguments.no_semantic)
    if arguments.only != "session":
        store_search()


if __name__ == "__main__":
    main()
