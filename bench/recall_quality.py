"""Benchmark: does recall put the turns that answer a question into the request?

Each conversation of the corpora in bench/data (recall_corpus.json and recall_superseded.json,
tuned on; recall_heldout.json, only measured) is stored in a
real store; each question is planned by a real ChatSession as the next message after the
whole conversation (gpt-4o counts, output reserve 512), with recall off, with full-text
recall, and with semantic recall (the embeddings extra). A question's evidence turn counts as
present only when its text is in the request's messages. Prints evidence recall by question
type and window, the superseded facts' newer decision, and the median planning time.

Run: python bench/recall_quality.py [--corpus dev|superseded|heldout|tuning|all] [--no-semantic]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.chat.window import WindowInfo
from ctxchat.config.settings import (
    ContextSettings,
    ProviderProfile,
    RecallSettings,
    Settings,
    SummarySettings,
)
from ctxchat.store import Store

DATA = Path(__file__).resolve().parent / "data"
CORPORA = {
    "dev": "recall_corpus.json",
    "superseded": "recall_superseded.json",
    "heldout": "recall_heldout.json",
}
WINDOWS = (4_096, 8_192, 16_384)
RESERVE = 512
MODES = ("off", "full-text", "semantic")
TYPES = ("single", "multi", "temporal", "paraphrase", "superseded")


@dataclass
class Tally:
    """Evidence turns found / asked, by (mode, window, question type); plan timings by mode."""

    found: dict[tuple[str, int, str], int] = field(default_factory=lambda: defaultdict(int))
    asked: dict[tuple[str, int, str], int] = field(default_factory=lambda: defaultdict(int))
    timings: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def add(self, mode: str, window: int, kind: str, found: int, asked: int) -> None:
        for key in ((mode, window, kind), (mode, window, "all")):
            self.found[key] += found
            self.asked[key] += asked

    def share(self, mode: str, window: int, kind: str) -> float:
        asked = self.asked[(mode, window, kind)]
        return self.found[(mode, window, kind)] / asked if asked else 0.0


def settings_for(mode: str) -> Settings:
    profile = ProviderProfile(
        name="bench", base_url="http://127.0.0.1:9/v1", model="gpt-4o", output_reserve=RESERVE
    )
    return Settings(
        profiles={"bench": profile},
        default_profile="bench",
        context=ContextSettings(output_reserve=RESERVE),
        recall=RecallSettings(enabled=mode != "off", semantic=mode == "semantic"),
        # Planning alone never folds; off says so, as the LoCoMo check has it.
        summary=SummarySettings(auto=False),
    )


def store_messages(store: Store, title: str, messages: list[tuple[str, str]]) -> int:
    """A new conversation holding (role, text) messages, counted as the app counts them."""
    settings = settings_for("off")
    conversation_id = store.conversations.create_conversation(title).id
    session = ChatSession(store, settings, settings.profiles["bench"], conversation_id)
    with store.transaction():
        for role, text in messages:
            store.messages.add_message(
                conversation_id,
                role,
                text,
                tokens=session.count(role, text),
                exact=session.counter.exact,
                encoding=session.counter.name,
                model="gpt-4o",
            )
    return conversation_id


def planner(
    store: Store,
    mode: str,
    conversation_id: int,
    window: int,
    semantic: SemanticRecall | None,
) -> ChatSession:
    """The session that plans the next message of the conversation, as the app's does."""
    settings = settings_for(mode)
    session = ChatSession(
        store,
        settings,
        settings.profiles["bench"],
        conversation_id,
        window=WindowInfo(window, "config"),
    )
    session.semantic = semantic if mode == "semantic" else None
    return session


def semantic_for(store: Store, conversation_id: int) -> SemanticRecall | None:
    if not SemanticRecall.possible():
        return None
    semantic = SemanticRecall(store, conversation_id)
    semantic.prepare()
    semantic.embed_rest(pause=0.0)
    return semantic


def run_conversation(
    store: Store, conversation: dict[str, Any], tally: Tally, modes: tuple[str, ...]
) -> None:
    pairs = [(m["role"], m["content"]) for m in conversation["messages"]]
    conversation_id = store_messages(store, conversation["title"], pairs)
    semantic = semantic_for(store, conversation_id) if "semantic" in modes else None
    messages = conversation["messages"]
    for mode in modes:
        if mode == "semantic" and semantic is None:
            continue
        for window in WINDOWS:
            session = planner(store, mode, conversation_id, window, semantic)
            for question in conversation["questions"]:
                started = time.perf_counter()
                plan = session.plan(question["question"])
                if window == WINDOWS[1]:
                    tally.timings[mode].append(time.perf_counter() - started)
                sent = "\n".join(m.content for m in plan.messages)
                evidence = [messages[i]["content"] for i in question["evidence"]]
                found = sum(text in sent for text in evidence)
                tally.add(mode, window, question["type"], found, len(evidence))


def report(name: str, corpus: dict[str, Any], tally: Tally, modes: tuple[str, ...]) -> None:
    questions = sum(len(c["questions"]) for c in corpus["conversations"])
    messages = sum(len(c["messages"]) for c in corpus["conversations"])
    print(
        f"\n== {name}: {len(corpus['conversations'])} conversations, {messages:,} messages, "
        f"{questions} questions (evidence recall, %) =="
    )
    shown = [m for m in modes if tally.asked[(m, WINDOWS[0], "all")]]
    header = "type".ljust(12) + "".join(
        f"{mode[:9]:>10}@{window // 1024}k" for window in WINDOWS for mode in shown
    )
    print(header)
    for kind in (*TYPES, "all"):
        cells = "".join(
            f"{tally.share(mode, window, kind) * 100:>13.1f}"
            for window in WINDOWS
            for mode in shown
        )
        print(kind.ljust(12) + cells)
    for mode in shown:
        timings = tally.timings[mode]
        print(
            f"median plan at 8k, {mode}: {statistics.median(timings) * 1000:.1f} ms "
            f"({len(timings)} plans)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=(*CORPORA, "tuning", "all"), default="all")
    parser.add_argument("--no-semantic", action="store_true")
    arguments = parser.parse_args()
    modes = MODES[:2] if arguments.no_semantic else MODES
    names = {"all": tuple(CORPORA), "tuning": ("dev", "superseded")}.get(
        arguments.corpus, (arguments.corpus,)
    )
    for name in names:
        corpus = json.loads((DATA / CORPORA[name]).read_text(encoding="utf-8"))
        tally = Tally()
        with tempfile.TemporaryDirectory() as directory:
            store = Store.open(Path(directory) / "quality.db")
            for conversation in corpus["conversations"]:
                run_conversation(store, conversation, tally, modes)
            store.close()
        report(name, corpus, tally, modes)


if __name__ == "__main__":
    main()
