"""Benchmark: planning with recall across conversations, in a project of 100 conversations
of 500 messages each (50,000 messages).

The messages are the recall-quality corpus (bench/data), repeated; the questions are its
own, so the searches find something. Each question is planned through ChatSession in a new
conversation of the project and in one of its 500-message conversations, with `[recall]
across` off (the baseline) and at its default ("project"), by words, and with `--meaning`
by words and meaning (every message embedded first: each distinct text once, its vector
stored for every message that says it). The target is 30 ms a plan.

Run: python bench/recall_across.py [--conversations 100] [--messages 500] [--meaning]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall import corpus_messages_and_questions
from recall_quality import planner, store_messages

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.core.across import RecallAcross
from ctxchat.core.budget import Layer
from ctxchat.store import Store

WINDOW = 16_384


def embed_all(store: Store) -> None:
    """A vector for every message: each distinct text encoded once."""
    from ctxchat.embeddings import MiniLMEncoder
    from ctxchat.embeddings.index import vector_blob

    encoder = MiniLMEncoder.load()
    messages = [
        m for c in store.conversations.list_conversations() for m in store.messages.messages(c.id)
    ]
    texts = sorted({m.content for m in messages})
    vectors = dict(zip(texts, encoder.encode(texts), strict=True))
    rows = [(m.id, m.content, vector_blob(vectors[m.content])) for m in messages]
    for start in range(0, len(rows), 5_000):
        store.search.save_embeddings(encoder.model_name, rows[start : start + 5_000])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--meaning", action="store_true", help="recall by meaning too")
    arguments = parser.parse_args()
    corpus, questions = corpus_messages_and_questions()
    with tempfile.TemporaryDirectory() as directory:
        store = Store.open(Path(directory) / "across.db")
        project = store.projects.create_project("bench").id
        started = time.perf_counter()
        held: list[int] = []
        for number in range(arguments.conversations):
            first = number * arguments.messages % max(1, len(corpus) - arguments.messages)
            part = corpus[first : first + arguments.messages]
            held.append(store_messages(store, f"conversation {number + 1}", part))
            store.projects.move_to_project(held[-1], project)
        new = store.conversations.create_conversation("new").id
        store.projects.move_to_project(new, project)
        mode = "semantic" if arguments.meaning else "full-text"
        if arguments.meaning:
            embed_all(store)
        print(
            f"project: {arguments.conversations} conversations of {arguments.messages} messages "
            f"(stored in {time.perf_counter() - started:.0f} s); {len(questions)} questions, "
            f"window {WINDOW:,}, recall by "
            + ("words and meaning" if arguments.meaning else "words")
        )
        for where, conversation in (("a new conversation", new), ("one of the 100", held[0])):
            for across in (RecallAcross.OFF, RecallAcross.PROJECT):
                semantic = None
                if arguments.meaning:
                    semantic = SemanticRecall(store, conversation)
                    semantic.prepare()
                    semantic.prepare_others(across.others(project))
                session = planner(store, mode, conversation, WINDOW, semantic)
                session.settings = dataclasses.replace(
                    session.settings,
                    recall=dataclasses.replace(session.settings.recall, across=across),
                )
                session.recaller.across = across
                session.plan(None)  # history read and counted once, as when it opens
                wall, cpu, elsewhere = [], [], 0
                for question in questions:
                    start, start_cpu = time.perf_counter(), time.process_time()
                    plan = session.plan(question)
                    wall.append(time.perf_counter() - start)
                    cpu.append(time.process_time() - start_cpu)
                    items = plan.layer(Layer.RECALL).items
                    elsewhere += sum(item.ref.startswith("conversation:") for item in items)
                print(
                    f"  {where}, across {across.value}: median "
                    f"{statistics.median(cpu) * 1000:.1f} ms CPU, "
                    f"{statistics.median(wall) * 1000:.1f} ms wall, max "
                    f"{max(wall) * 1000:.1f} ms; {elsewhere / len(questions):.1f} items from "
                    "other conversations a plan"
                )
        store.close()


if __name__ == "__main__":
    main()
