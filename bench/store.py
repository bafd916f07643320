"""Benchmark of the SQLite store on a 10,000-message conversation: open, history + assembly,
a streamed reply with its plan, kept counts under another writer. Run: python bench/store.py"""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ctxchat.core.assemble import assemble_context
from ctxchat.core.budget import Budget
from ctxchat.core.history import HistoryMessage
from ctxchat.core.memory import Mode
from ctxchat.core.plan import ContextPlan
from ctxchat.core.tokens import CachingCounter, count_message, counter_for_model
from ctxchat.store import ReplyEnding, ReplyWriter, Store, StoreError
from ctxchat.store.connection import BUSY_TIMEOUT_MS

MESSAGES = 10_000
DELTAS = 2_000
RUNS = 5

ENGLISH = [
    "The",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog",
    "while",
    "the",
    "team",
    "reviews",
    "the",
    "migration",
    "plan",
    "and",
    "decides",
    "which",
    "constraints",
    "must",
    "hold",
    "before",
    "the",
    "release.",
]
RUSSIAN = [
    "Быстрая",
    "коричневая",
    "лиса",
    "перепрыгивает",
    "через",
    "ленивую",
    "собаку,",
    "пока",
    "команда",
    "обсуждает",
    "план",
    "миграции",
    "и",
    "решает,",
    "какие",
    "ограничения",
    "должны",
    "соблюдаться.",
]
CODE = [
    "def load(path: Path) -> dict[str, int]:\n    return json.loads(path.read_text())\n",
    "for row in conn.execute('SELECT id, content FROM messages'):\n    print(row)\n",
    "```python\nclass Budget:\n    total: int = 128_000\n```\n",
]


def text_for(rng: random.Random, index: int) -> str:
    kind = index % 3
    if kind == 0:
        return " ".join(rng.choice(ENGLISH) for _ in range(rng.randint(8, 120)))
    if kind == 1:
        return " ".join(rng.choice(RUSSIAN) for _ in range(rng.randint(8, 120)))
    return "Here is the code:\n" + "".join(rng.choice(CODE) for _ in range(rng.randint(1, 6)))


def timed(action: Callable[[], object], runs: int = RUNS) -> float:
    """Median seconds of `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    counter = CachingCounter(counter_for_model("gpt-4o"))
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "ctxchat.db"
        started = time.perf_counter()
        with Store.open(path) as store:
            conversation = store.conversations.create_conversation("benchmark", model="gpt-4o").id
            with store.transaction():  # one commit for the whole setup
                for index in range(MESSAGES):
                    role = "user" if index % 2 == 0 else "assistant"
                    text = text_for(rng, index)
                    count = count_message(counter, role, text)  # counted once, when stored
                    store.messages.add_message(
                        conversation,
                        role,
                        text,
                        tokens=count.tokens,
                        exact=count.exact,
                        encoding=counter.name,
                    )
            store.checkpoint()
        setup = time.perf_counter() - started
        print(f"setup: {MESSAGES:,} messages counted and inserted in {setup:.2f} s")
        print(f"database file: {path.stat().st_size / 1e6:.1f} MB")

        open_time = timed(lambda: Store.open(path).close())
        print(f"open (checks, migrations, recovery): {open_time * 1000:.1f} ms")

        with Store.open(path) as store:
            memory = store.memory.list_memory(conversation_id=conversation)

            def history() -> list[HistoryMessage]:
                return store.messages.history(conversation, counter.name)

            def assemble() -> ContextPlan:
                return assemble_context(
                    budget=Budget(128_000, 4096),
                    counter=counter,
                    mode=Mode.PERSONALIZATION,
                    system_prompt="You are a helpful assistant.",
                    memory=memory,
                    summary=None,
                    history=store.messages.history(conversation, counter.name),
                    new_input="What did we decide about the migration?",
                    conversation_id=conversation,
                )

            history_time = timed(history)
            assemble_time = timed(assemble)
            plan = assemble()
            print(f"history(): {history_time * 1000:.1f} ms")
            print(
                f"history() + assemble_context: {assemble_time * 1000:.1f} ms "
                f"({len(plan.messages)} messages, {plan.tokens:,} tokens in the plan)"
            )

            def reply(interval: float) -> Callable[[], object]:
                def run() -> object:
                    writer = ReplyWriter.start(
                        store.replies, conversation, model="gpt-4o", interval=interval
                    )
                    store.plans.save_plan(writer.message_id, plan)
                    for index in range(DELTAS):
                        writer.append(f"token{index} ")
                    return writer.close(
                        ReplyEnding(
                            content=writer.content,
                            reasoning=writer.reasoning,
                            tokens=DELTAS,
                            exact=True,
                            encoding=counter.name,
                        )
                    )

                return run

            throttled = timed(reply(0.25))
            every_delta = timed(reply(0.0), runs=3)
            print(
                f"streamed reply, {DELTAS:,} deltas + plan, saved every 0.25 s: "
                f"{throttled * 1000:.1f} ms"
            )
            print(
                f"streamed reply, {DELTAS:,} deltas + plan, saved on every delta: "
                f"{every_delta * 1000:.1f} ms ({every_delta / DELTAS * 1e6:.0f} µs a save)"
            )
            last = store.messages.messages(conversation)[-1].id
            save_plan_time = timed(lambda: store.plans.save_plan(last, plan))
            load_plan_time = timed(lambda: store.plans.load_plan(last))
            with store.reading() as conn:
                packed = conn.execute(
                    "SELECT length(packed) FROM reply_plans WHERE message_id = ?", (last,)
                ).fetchone()[0]
            print(
                f"save_plan: {save_plan_time * 1000:.1f} ms, load_plan: "
                f"{load_plan_time * 1000:.1f} ms, stored plan: {packed:,} bytes "
                f"(to_dict JSON would be {len(json.dumps(plan.to_dict())):,})"
            )
            other = sqlite3.connect(path)  # another process writing: keeping counts gives way
            other.execute("BEGIN IMMEDIATE")

            def keep_while_locked() -> None:
                try:
                    store.counts.keep_counts(counter.name, {b"k" * 16: 1})
                except StoreError:
                    return
                raise AssertionError("kept counts while another writer held the database")

            given_up = timed(keep_while_locked)
            other.rollback()
            other.close()
            print(
                f"keep_counts while another writer holds the database: gave up after "
                f"{given_up * 1000:.0f} ms ({given_up * 1000 / BUSY_TIMEOUT_MS:.3f}x the "
                f"{BUSY_TIMEOUT_MS:,} ms other writes wait)"
            )
            export_time = timed(lambda: store.transfer.export_conversation(conversation), runs=3)
            print(f"export_conversation: {export_time * 1000:.0f} ms")
            started = time.perf_counter()
            store.conversations.delete_conversation(conversation)
            print(
                f"delete_conversation (secure delete, vacuum, log emptied): "
                f"{(time.perf_counter() - started) * 1000:.0f} ms, file now "
                f"{path.stat().st_size / 1e6:.2f} MB"
            )


if __name__ == "__main__":
    main()
