"""Benchmark: evidence recall on LoCoMo conversations, counted as the acceptance check counts it.

LoCoMo (Maharana et al., ACL 2024; snap-research/LoCoMo, CC BY-NC 4.0) is not part of the
project: its path is the first argument. Each conversation becomes one ctxchat conversation
in a real store: every turn of every session in order is one message (the first speaker's
turns `user`, the second's `assistant`), reading `[SESSION DATE] SPEAKER: TEXT`, plus
` [shares CAPTION]` when the turn shares a picture. Each question of categories 1-4 (1
multi-hop, 2 temporal, 3 open-domain, 4 single-hop) is planned by a real ChatSession as the
next user message (gpt-4o counts, windows 4,096 / 8,192 / 16,384 with an output reserve of
512, automatic summaries off, everything else the default configuration), and an evidence
turn counts as present when its message is in the planned request (working memory or recall).

Also: retrieval alone, without a budget (the share of evidence turns ranked in the top 5
of all the conversation's turns by the full-text query and by the encoder's cosine), and the
median planning time (CPU and wall clock).

Each conversation has a store of its own (the store's full-text ranking weighs words by all
the conversations it holds). Evidence ids that name no turn (`D`, a turn a session lacks)
are not counted.

With `--across`, recall across conversations is measured instead: each LoCoMo conversation
becomes one ctxchat conversation per session, all in one project, and each question is
planned as the first message of a new conversation of that project (`[recall] across` at
its default), so every evidence turn can only come from another conversation. By meaning,
the sessions' messages are embedded first, as the app embeds the other conversations of a
project in the background.

Run: python bench/locomo.py PATH [--window 8192] [--no-semantic] [--across] [--keep DIR]
[--dump FILE]
`--keep` keeps the stores (and their vectors) in DIR across runs, for quicker iterations.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_quality import planner, store_messages

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.core.budget import Layer
from ctxchat.core.recall import (
    ConversationTerms,
    distinctive_terms,
    fts_query,
    local_relevance,
    meaning_query,
    query_terms,
    uncommon_terms,
)
from ctxchat.store import Store

WINDOWS = (4_096, 8_192, 16_384)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TOP = 5
# `D1:3`, and the irregular `D:11:26`, `D30:05`; one string may hold several (`D8:6; D9:17`).
_DIALOG_ID = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    category: int
    evidence: tuple[int, ...]
    """Indexes of the evidence turns among the conversation's messages."""


@dataclass(frozen=True, slots=True)
class Conversation:
    name: str
    messages: tuple[tuple[str, str], ...]  # (role, content)
    questions: tuple[Question, ...]
    sessions: tuple[tuple[int, int], ...] = ()
    """Each session's messages, as (first, end) indexes into `messages`."""


def dialog_key(session: int, turn: int) -> str:
    return f"D{session}:{turn}"


def read_conversation(sample: dict[str, Any]) -> Conversation:
    """One LoCoMo sample as messages and the questions about it."""
    conversation = sample["conversation"]
    first = conversation["speaker_a"]
    sessions = sorted(
        (int(match.group(1)), key)
        for key, turns in conversation.items()
        if (match := _SESSION.fullmatch(key)) and isinstance(turns, list)
    )
    messages: list[tuple[str, str]] = []
    position: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for number, key in sessions:
        spans.append((len(messages), len(messages) + len(conversation[key])))
        date = conversation[f"{key}_date_time"]
        for turn in conversation[key]:
            text = f"[{date}] {turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares {turn['blip_caption']}]"
            found = _DIALOG_ID.fullmatch(turn["dia_id"])
            if found:
                position[dialog_key(number, int(found.group(2)))] = len(messages)
            messages.append(("user" if turn["speaker"] == first else "assistant", text))
    questions = []
    for qa in sample["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        evidence = [
            position[key]
            for cited in qa.get("evidence", [])
            for session, turn in _DIALOG_ID.findall(cited)
            if (key := dialog_key(int(session), int(turn))) in position
        ]
        questions.append(Question(qa["question"], qa["category"], tuple(dict.fromkeys(evidence))))
    return Conversation(sample["sample_id"], tuple(messages), tuple(questions), tuple(spans))


@dataclass
class Tally:
    """Evidence present / asked by (window, category); plan timings; retrieval ranks."""

    found: dict[tuple[int, int], int] = field(default_factory=lambda: defaultdict(int))
    asked: dict[tuple[int, int], int] = field(default_factory=lambda: defaultdict(int))
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    top: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ranked: int = 0
    embedded: int = 0
    embedding_seconds: float = 0.0

    def add(self, window: int, category: int, found: int, asked: int) -> None:
        for key in ((window, category), (window, 0)):
            self.found[key] += found
            self.asked[key] += asked

    def embedding(self, embed: Callable[[], int]) -> None:
        """Run `embed` (it returns how many messages it embedded); count them and its time."""
        started = time.perf_counter()
        done = embed()
        if done:
            self.embedded += done
            self.embedding_seconds += time.perf_counter() - started

    def share(self, window: int, category: int) -> float:
        asked = self.asked[(window, category)]
        return 100.0 * self.found[(window, category)] / asked if asked else 0.0


def stored_conversation(store: Store, conversation: Conversation) -> int:
    """The conversation's id in `store`, storing it first unless a kept store holds it."""
    for held in store.conversations.list_conversations():
        if held.title == conversation.name:
            return held.id
    return store_messages(store, conversation.name, list(conversation.messages))


def stored_across(store: Store, conversation: Conversation) -> int:
    """The conversation's sessions stored as conversations of one project, and the empty
    conversation of that project the questions are asked from (its id); those of a kept
    store when it holds them."""
    asking = f"{conversation.name} questions"
    for held in store.conversations.list_conversations():
        if held.title == asking:
            return held.id
    project = store.projects.create_project(conversation.name).id
    for number, (first, end) in enumerate(conversation.sessions, start=1):
        title = f"{conversation.name} session {number}"
        session_id = store_messages(store, title, list(conversation.messages[first:end]))
        store.projects.move_to_project(session_id, project)
    asking_id = store.conversations.create_conversation(asking).id
    store.projects.move_to_project(asking_id, project)
    return asking_id


def run_across(
    store: Store,
    conversation: Conversation,
    mode: str,
    windows: tuple[int, ...],
    tally: Tally,
    dump: list[dict[str, Any]] | None,
) -> None:
    """Each question asked from a new conversation of the project the sessions are in; by
    meaning too, the sessions' messages embedded first (as the app does in the background)."""
    asking = stored_across(store, conversation)
    semantic = None
    if mode == "semantic":
        semantic = SemanticRecall(store, asking)
        semantic.prepare()
        others = planner(store, mode, asking, windows[0], semantic).recaller.others()
        semantic.prepare_others(others)
        tally.embedding(lambda: semantic.embed_others(others))
    for window in windows:
        session = planner(store, mode, asking, window, semantic)
        plan_questions(session, conversation, window, tally, dump)


def run_conversation(
    store: Store,
    conversation: Conversation,
    mode: str,
    windows: tuple[int, ...],
    tally: Tally,
    *,
    ranks: bool,
    dump: list[dict[str, Any]] | None,
) -> None:
    conversation_id = stored_conversation(store, conversation)
    semantic = None
    if mode == "semantic":
        semantic = SemanticRecall(store, conversation_id)
        semantic.prepare()
        tally.embedding(lambda: semantic.embed_rest(batch=64, pause=0.0))
    for window in windows:
        session = planner(store, mode, conversation_id, window, semantic)
        plan_questions(session, conversation, window, tally, dump)
    if ranks:
        retrieval_ranks(store, conversation_id, conversation, semantic, tally)


def plan_questions(
    session: ChatSession,
    conversation: Conversation,
    window: int,
    tally: Tally,
    dump: list[dict[str, Any]] | None,
) -> None:
    texts = [content for _, content in conversation.messages]
    session.plan(None)  # history read and counted once, as when a conversation opens
    for question in conversation.questions:
        started, started_cpu = time.perf_counter(), time.process_time()
        plan = session.plan(question.text)
        tally.wall.append(time.perf_counter() - started)
        tally.cpu.append(time.process_time() - started_cpu)
        sent = "\n".join(message.content for message in plan.messages)
        present = [i for i in question.evidence if texts[i] in sent]
        tally.add(window, question.category, len(present), len(question.evidence))
        if dump is not None:
            dump.append(
                {
                    "conversation": conversation.name,
                    "window": window,
                    "question": question.text,
                    "category": CATEGORIES[question.category],
                    "evidence": list(question.evidence),
                    "present": present,
                    "recalled": [
                        {"ref": item.ref, "why": item.label}
                        for item in plan.layer(Layer.RECALL).items
                    ],
                }
            )


def retrieval_ranks(
    store: Store,
    conversation_id: int,
    conversation: Conversation,
    semantic: SemanticRecall | None,
    tally: Tally,
) -> None:
    """Rank every turn for each question without a budget: the evidence in the top TOP by
    the full-text query (as recall builds it) and by cosine (of the question as asked, and
    of recall's query for meaning)."""
    stored = store.messages.messages(conversation_id)
    ids = [message.id for message in stored]
    newest = len(ids) - 1
    position = {message_id: index for index, message_id in enumerate(ids)}
    stats = ConversationTerms()
    for message in stored:
        stats.add(message.content, message.id)
    for question in conversation.questions:
        wanted = {ids[i] for i in question.evidence}
        tally.ranked += len(question.evidence)
        terms = query_terms(question.text)
        kept, _ = distinctive_terms(terms, store.search.term_documents(terms))
        kept, _ = uncommon_terms(kept, stats)
        if kept:
            found = store.search.search_messages(
                conversation_id,
                fts_query(kept),
                limit=len(ids),
                age_of=lambda i: newest - position[i],
            )
            best = local_relevance(found, kept, stats)[:TOP]
            tally.top["full-text"] += sum(c.message_id in wanted for c in best)
        if semantic is not None and semantic.ready:
            for label, query in (
                ("cosine, question as asked", question.text),
                ("cosine, recall's query", meaning_query(question.text, stats)),
            ):
                best = semantic.candidates(query, TOP, None, lambda i: newest - position[i])
                tally.top[label] += sum(c.message_id in wanted for c in best)


def report(tally: Tally, windows: tuple[int, ...], label: str) -> None:
    print(f"\n== evidence recall, {label} (%) ==")
    print("category".ljust(13) + "".join(f"{w:>9,}" for w in windows))
    for category, name in (*CATEGORIES.items(), (0, "all")):
        asked = tally.asked[(windows[0], category)]
        cells = "".join(f"{tally.share(w, category):>9.1f}" for w in windows)
        print(f"{name:<13}{cells}   ({asked} evidence turns)")
    if tally.wall:
        print(
            f"planning: median {statistics.median(tally.cpu) * 1000:.1f} ms CPU, "
            f"{statistics.median(tally.wall) * 1000:.1f} ms wall ({len(tally.wall)} plans)"
        )
    if tally.ranked:
        print(f"retrieval alone, evidence in the top {TOP} of all turns:")
        for name, count in tally.top.items():
            print(f"  {name}: {100.0 * count / tally.ranked:.1f}%")
    if tally.embedded:
        print(
            f"embedded {tally.embedded:,} messages in {tally.embedding_seconds:.0f} s: "
            f"{tally.embedded / tally.embedding_seconds:.1f} messages/s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="LoCoMo's locomo10.json, or a part of it")
    parser.add_argument("--window", type=int, action="append", choices=WINDOWS)
    parser.add_argument("--no-semantic", action="store_true", help="recall by words only")
    parser.add_argument(
        "--across",
        action="store_true",
        help="one conversation per session in a project; ask from a new conversation of it",
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the stores in this directory, and reuse them"
    )
    parser.add_argument("--only", action="append", help="a conversation's sample_id")
    parser.add_argument("--no-ranks", action="store_true", help="skip retrieval alone")
    parser.add_argument("--dump", type=Path, help="write every question's outcome here (JSON)")
    arguments = parser.parse_args()
    windows = tuple(sorted(arguments.window)) if arguments.window else WINDOWS
    mode = "full-text" if arguments.no_semantic else "semantic"
    if mode == "semantic" and not SemanticRecall.possible():
        parser.error("the embeddings extra is not installed: pass --no-semantic")
    samples = json.loads(arguments.path.read_text(encoding="utf-8"))
    conversations = [
        read_conversation(s)
        for s in samples
        if not arguments.only or s["sample_id"] in arguments.only
    ]
    tally = Tally()
    dump: list[dict[str, Any]] | None = [] if arguments.dump else None
    with TemporaryDirectory() as temporary:
        directory = arguments.keep or Path(temporary)
        directory.mkdir(parents=True, exist_ok=True)
        for conversation in conversations:
            if arguments.across:
                store = Store.open(directory / f"{conversation.name}-across.db")
                run_across(store, conversation, mode, windows, tally, dump)
                store.close()
                continue
            store = Store.open(directory / f"{conversation.name}.db")
            run_conversation(
                store,
                conversation,
                mode,
                windows,
                tally,
                ranks=not arguments.no_ranks,
                dump=dump,
            )
            store.close()
    questions = sum(len(c.questions) for c in conversations)
    messages = sum(len(c.messages) for c in conversations)
    report(
        tally,
        windows,
        f"{len(conversations)} conversations, {messages:,} messages, {questions} questions, "
        + ("words and meaning" if mode == "semantic" else "words only")
        + (
            f", across conversations ({sum(len(c.sessions) for c in conversations)} "
            "sessions, each asked from a new conversation)"
            if arguments.across
            else ""
        ),
    )
    if arguments.dump and dump is not None:
        arguments.dump.write_text(json.dumps(dump, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
