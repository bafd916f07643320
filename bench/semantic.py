"""Benchmark: semantic recall — encoding speed, search over 100,000 vectors, index load time,
the memory the encoder takes, and embedding a history (messages per second, and how long a
command waits for a long history it has never embedded).

Needs the embeddings extra. Run: python bench/semantic.py [--only history]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _corpus import synthetic_texts, varied_texts

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.chat.session_factory import prepare_recall
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.embeddings.background import embed_pending
from ctxchat.embeddings.encoder import MiniLMEncoder
from ctxchat.embeddings.index import SemanticIndex, vector_blob
from ctxchat.store import Store

DIMENSIONS = 384
SEARCHED = 100_000
STORED = 10_000


def median_ms(run: Callable[[], object], repeat: int = 15) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings) * 1000


def unit_vectors(count: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((count, DIMENSIONS), dtype=np.float32)
    normalised: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return normalised


def encoding(encoder: MiniLMEncoder) -> None:
    for label, texts in (
        ("chat sentences, English/Russian/code", synthetic_texts(256, seed=11)),
        ("invented words, 8-40 per message", varied_texts(256, seed=11)),
    ):
        tokens = sum(encoder.token_counts(texts))
        encoder.encode(texts[:8])  # warm up
        start = time.perf_counter()
        encoder.encode(texts)
        elapsed = time.perf_counter() - start
        print(
            f"encode {label}: {len(texts) / elapsed:.0f} messages/s "
            f"({tokens / len(texts):.0f} tokens each on average, {tokens / elapsed:,.0f} tokens/s)"
        )
    draft = "What did we decide about the database for production?"
    print(f"encode one draft: {median_ms(lambda: encoder.encode([draft])):.1f} ms (median)")
    long = " ".join(synthetic_texts(40, seed=2))
    print(f"encode one 256-token message: {median_ms(lambda: encoder.encode([long]), 5):.0f} ms")


def searching() -> None:
    index = SemanticIndex(DIMENSIONS)
    vectors = unit_vectors(SEARCHED, seed=1)
    start = time.perf_counter()
    index.add(list(range(1, SEARCHED + 1)), vectors)
    print(f"index {SEARCHED:,} vectors: built in {(time.perf_counter() - start) * 1000:.0f} ms")
    queries = iter(unit_vectors(300, seed=2))
    print(
        f"search {SEARCHED:,} vectors, top 20: "
        f"{median_ms(lambda: index.search(next(queries), 20), 50):.1f} ms (median of 50); "
        f"with before_id (the newest 50 left out): "
        f"{median_ms(lambda: index.search(next(queries), 20, before_id=SEARCHED - 50), 50):.1f} ms"
    )
    shuffled = SemanticIndex(DIMENSIONS)
    shuffled.add(list(range(SEARCHED, 0, -1)), vectors)
    print(
        "  ids added out of order, with before_id: "
        f"{median_ms(lambda: shuffled.search(next(queries), 20, before_id=SEARCHED - 50), 50):.1f} ms"
    )


def loading(encoder: MiniLMEncoder) -> None:
    with tempfile.TemporaryDirectory() as directory:
        store = Store.open(Path(directory) / "semantic.db")
        conversation = store.conversations.create_conversation("bench").id
        texts = varied_texts(STORED, seed=3)
        with store.transaction():
            ids = [
                store.messages.add_message(
                    conversation, "user", text, tokens=10, exact=False, encoding="estimate"
                ).id
                for text in texts
            ]
        vectors = unit_vectors(STORED, seed=3)
        rows = [(i, t, vector_blob(v)) for i, t, v in zip(ids, texts, vectors, strict=True)]
        store.search.save_embeddings(encoder.model_name, rows)
        load = median_ms(
            lambda: SemanticIndex.load(store, conversation, encoder.model_name, DIMENSIONS), 7
        )
        print(f"load {STORED:,} stored vectors into an index: {load:.0f} ms (median of 7)")
        # The background path for real: new messages embedded a batch of 32 at a time.
        fresh = [
            store.messages.add_message(
                conversation, "user", t, tokens=10, exact=False, encoding="e"
            ).id
            for t in synthetic_texts(96, seed=4)
        ]
        index = SemanticIndex.load(store, conversation, encoder.model_name, DIMENSIONS)
        start = time.perf_counter()
        done = 0
        while count := embed_pending(store, encoder, conversation, index=index):
            done += count
        elapsed = time.perf_counter() - start
        assert done == len(fresh) and len(index) == STORED + len(fresh)
        print(f"embed_pending {done} new messages (encode + save + index): {done / elapsed:.0f}/s")
        store.close()


def imported_history(store: Store, count: int, size: int) -> int:
    """A conversation of `count` messages of about `size` characters, none embedded."""
    conversation = store.conversations.create_conversation(f"{count} x {size}").id
    texts = synthetic_texts(count * max(1, size // 120), seed=9)
    per = max(1, size // 120)
    with store.transaction():
        for index in range(count):
            text = " ".join(texts[index * per : (index + 1) * per])[:size]
            role = "user" if index % 2 == 0 else "assistant"
            store.messages.add_message(
                conversation, role, text, tokens=size // 4, exact=False, encoding="e"
            )
    return conversation


def history_embedding() -> None:
    """Embedding a history as the app does it (batches of 16, no pause), and a command's first
    plan of a long history none of which is embedded (the bounded wait, then the plan)."""
    with tempfile.TemporaryDirectory() as directory:
        store = Store.open(Path(directory) / "history.db")
        for count, size in ((400, 200), (100, 5_000)):
            conversation = imported_history(store, count, size)
            semantic = SemanticRecall(store, conversation)
            semantic.prepare()
            start, start_cpu = time.perf_counter(), time.process_time()
            done = semantic.embed_rest(16, pause=0.0)
            wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
            print(
                f"embed a history of {count} messages of {size:,} characters: "
                f"{done / wall:.1f} messages/s ({done / cpu:.1f} per CPU second)"
            )
        profile = ProviderProfile("bench", "http://127.0.0.1:9/v1", "gpt-4o")
        settings = Settings(profiles={"bench": profile}, default_profile="bench")
        conversation = imported_history(store, 600, 5_000)
        session = ChatSession(store, settings, profile, conversation)
        start, start_cpu = time.perf_counter(), time.process_time()
        left = prepare_recall(session, "What did we say about the schema?").left
        session.plan("What did we say about the schema?")
        print(
            f"a command's first plan of 600 messages of 5,000 characters, none embedded: "
            f"{time.perf_counter() - start:.1f} s ({time.process_time() - start_cpu:.1f} s of "
            f"CPU; the encoder's load and the history's first read included), {left} left "
            "to embed"
        )
        store.close()


def resident_mb() -> float:
    """This process's resident memory, MB (Linux; 0 elsewhere)."""
    status = Path("/proc/self/status")
    if not status.exists():
        return 0.0
    line = next(x for x in status.read_text().splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("history",))
    if parser.parse_args().only == "history":
        history_embedding()
        return
    before = resident_mb()
    start = time.perf_counter()
    encoder = MiniLMEncoder.load()
    print(f"load the encoder: {(time.perf_counter() - start) * 1000:.0f} ms")
    encoder.encode(["warm up the first batch's buffers"])
    print(
        f"memory: {before:.0f} MB resident with numpy imported, {resident_mb():.0f} MB with the "
        f"encoder loaded (+{resident_mb() - before:.0f} MB)"
    )
    encoding(encoder)
    searching()
    loading(encoder)
    history_embedding()


if __name__ == "__main__":
    main()
