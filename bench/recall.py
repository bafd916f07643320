"""Benchmark: recall over 100,000 stored messages (FTS5 + BM25 + recency ranking).

Run: python bench/recall.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import synthetic_texts, varied_texts

from ctxchat.core.recall import distinctive_terms, fts_query, query_terms, rank_recall
from ctxchat.store import Store

MESSAGES = 100_000
QUESTIONS = [
    "What did we decide about the database?",
    "Почему модель забывает начало разговора?",
    "Which health check timed out during the deploy?",
    "How do we fold the summary?",
]


def measure(texts: list[str], questions: list[str], label: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        store = Store.open(Path(directory) / "recall.db")
        conversation = store.create_conversation("bench").id
        started = time.perf_counter()
        with store.transaction():
            for index, text in enumerate(texts):
                role = "user" if index % 2 == 0 else "assistant"
                store.add_message(
                    conversation,
                    role,
                    text,
                    tokens=len(text) // 4,
                    exact=False,
                    encoding="estimate",
                )
        # The session knows every message's position from the history it holds.
        ids = [m.id for m in store.messages(conversation)]
        position = {message_id: index for index, message_id in enumerate(ids)}
        newest = len(ids) - 1
        print(f"{label}: stored {len(texts):,} messages in {time.perf_counter() - started:.1f} s")
        for question in questions:
            terms = query_terms(question)
            timings = []
            for _ in range(7):
                # What ChatSession.recall does for a draft: skip words too common to say
                # anything, search the rest, rank by relevance × recency.
                start = time.perf_counter()
                kept, skipped = distinctive_terms(terms, store.term_documents(terms))
                hits = []
                if kept:
                    candidates = store.search_messages(
                        conversation,
                        fts_query(kept),
                        limit=20,
                        age_of=lambda i: newest - position[i],
                    )
                    hits = rank_recall(candidates, kept)
                timings.append(time.perf_counter() - start)
            documents = store.term_documents(terms)
            best = hits[0] if hits else None
            print(
                f"  {question!r}: {statistics.median(timings) * 1000:.1f} ms (median of 7); "
                + ", ".join(f"{t} in {documents[t]:,}" for t in terms)
                + (f"; skipped as too common: {', '.join(skipped)}" if skipped else "")
                + (f"; best {best.ref}, {best.age:,} messages ago" if best else "; no recall")
            )
        store.close()


def main() -> None:
    varied = varied_texts(MESSAGES)
    # Questions about words of the invented vocabulary: a common, a middling and a rare one.
    counts = Counter(
        w for text in varied for w in text.rstrip(".").lower().split() if query_terms(w)
    )
    ranked = [word for word, _ in counts.most_common()]
    picks = [ranked[i] for i in (0, 10, 25, 100, 1000)]
    measure(varied, [f"What did we say about {w}?" for w in picks], "varied vocabulary")
    measure(synthetic_texts(MESSAGES, seed=3), QUESTIONS, "ten repeated sentences (worst case)")


if __name__ == "__main__":
    main()
